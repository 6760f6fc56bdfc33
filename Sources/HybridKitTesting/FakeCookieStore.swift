import Foundation
import HybridKit
import Synchronization

/// An in-memory `EngineCookieStore` that reports changes as engines do (after the fact, without saying what
/// changed) and counts writes, so tests can see echo loops.
///
/// It is not an RFC 6265 store: `cookies(for:)` returns every cookie whatever the URL, and cookies are keyed by
/// name, domain and path only.
public final class FakeCookieStore: EngineCookieStore {
    private let cookies = Mutex<[EngineCookie]>([])
    private let observers = Mutex<[@Sendable () -> Void]>([])
    private let writeCount = Mutex(0)
    /// Stores a cookie without SameSite as None, as libsoup does.
    public let unsetSameSiteIsNone: Bool

    public init(unsetSameSiteIsNone: Bool = false) {
        self.unsetSameSiteIsNone = unsetSameSiteIsNone
    }

    /// Calls of `setCookie` and `deleteCookie` (changes made with ``engineSets(_:)`` do not count).
    public var writes: Int { writeCount.withLock { $0 } }
    public var all: [EngineCookie] { cookies.withLock { $0 } }

    public func cookies(for url: URL?) async throws(EngineError) -> [EngineCookie] { all }

    public func setCookie(_ cookie: EngineCookie) async throws(EngineError) {
        writeCount.withLock { $0 += 1 }
        engineSets(cookie)
    }

    public func deleteCookie(_ cookie: EngineCookie) async throws(EngineError) {
        writeCount.withLock { $0 += 1 }
        engineDeletes(name: cookie.name, domain: cookie.domain)
    }

    public func observeChanges(_ observer: @escaping @Sendable () -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// A change the engine makes itself (a response it handled, a page script).
    public func engineSets(_ given: EngineCookie) {
        var cookie = given
        if unsetSameSiteIsNone, cookie.sameSite == nil { cookie.sameSite = EngineCookie.SameSite.none }
        cookies.withLock { list in
            list.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            list.append(cookie)
        }
        changed()
    }

    /// A deletion the engine makes itself (expiry, a page script).
    public func engineDeletes(name: String, domain: String) {
        cookies.withLock { $0.removeAll { $0.name == name && $0.domain == domain } }
        changed()
    }

    private func changed() {
        for observer in observers.withLock({ $0 }) { observer() }
    }
}
