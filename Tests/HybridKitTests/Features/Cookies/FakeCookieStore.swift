import Foundation
import HybridKit
import Synchronization

/// An in-memory engine cookie store that reports changes like the engines do (after the fact, without details),
/// and counts writes so tests can see echoes.
final class FakeCookieStore: EngineCookieStore {
    private let cookies = Mutex<[EngineCookie]>([])
    private let observers = Mutex<[@Sendable () -> Void]>([])
    private let writeCount = Mutex(0)
    /// Stores a cookie without SameSite as None, as libsoup does.
    let unsetSameSiteIsNone: Bool

    init(unsetSameSiteIsNone: Bool = false) {
        self.unsetSameSiteIsNone = unsetSameSiteIsNone
    }

    var writes: Int { writeCount.withLock { $0 } }
    var all: [EngineCookie] { cookies.withLock { $0 } }

    func cookies(for url: URL?) async throws(EngineError) -> [EngineCookie] { all }

    func setCookie(_ cookie: EngineCookie) async throws(EngineError) {
        writeCount.withLock { $0 += 1 }
        engineSets(cookie)
    }

    func deleteCookie(_ cookie: EngineCookie) async throws(EngineError) {
        writeCount.withLock { $0 += 1 }
        engineDeletes(name: cookie.name, domain: cookie.domain)
    }

    func observeChanges(_ observer: @escaping @Sendable () -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// A change the engine makes itself (a response it handled, a page script).
    func engineSets(_ given: EngineCookie) {
        var cookie = given
        if unsetSameSiteIsNone, cookie.sameSite == nil { cookie.sameSite = EngineCookie.SameSite.none }
        cookies.withLock { list in
            list.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            list.append(cookie)
        }
        changed()
    }

    func engineDeletes(name: String, domain: String) {
        cookies.withLock { $0.removeAll { $0.name == name && $0.domain == domain } }
        changed()
    }

    private func changed() {
        for observer in observers.withLock({ $0 }) { observer() }
    }
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
