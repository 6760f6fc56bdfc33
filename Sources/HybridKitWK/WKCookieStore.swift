#if canImport(WebKit) || os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridCookies
import HybridKit
#if os(Linux)
import WebKitStandIn
#else
import WebKit
#endif

/// WKHTTPCookieStore → the port's cookie store. WKHTTPCookieStore can only list every cookie, so the cookies
/// for a URL are chosen here with HybridCookies' RFC 6265 rules (the jar's own domain- and path-match).
///
/// WebKit keys cookie-store observers by address, holds them weakly and ignores an `add` for a key it holds: an
/// observer that dies registered leaves its key behind, and the next object allocated at that address is never
/// told. So the observer is a small object of its own that stays alive until it has been removed: on
/// ``detach()`` (the engine closes) or, for an engine dropped without closing, in a main-actor task the
/// deinitializer starts.
@MainActor
final class WKCookieStore: NSObject, EngineCookieStore {
    private let store: WKHTTPCookieStore
    private let relay = CookieChangeRelay()
    private var observers: [@Sendable () -> Void] = []
    private var attached = false

    init(store: WKHTTPCookieStore) {
        self.store = store
        super.init()
        relay.owner = self
        store.add(relay)
        attached = true
    }

    /// Unregisters from WebKit; later engine-side changes are no longer reported. Repeatable.
    func detach() {
        guard attached else { return }
        attached = false
        store.remove(relay)
        observers.removeAll()
    }

    // Not `isolated deinit` (it needs a newer runtime than the package's iOS 18 / macOS 15): the relay and the
    // store are main-actor objects (Sendable), removed on the main actor; the relay lives until then, so its
    // address cannot be reused while WebKit still holds its key.
    deinit {
        guard attached else { return }
        let store = store
        let relay = relay
        Task { @MainActor in store.remove(relay) }
    }

    nonisolated func cookies(for url: URL?) async throws(EngineError) -> [EngineCookie] {
        let all = await allCookies()
        guard let url else { return all }
        return all.filter { Self.matches($0, url: url, now: Date()) }
    }

    private func allCookies() async -> [EngineCookie] {
        await store.allCookies().map(Self.engineCookie)
    }

    nonisolated func setCookie(_ cookie: EngineCookie) async throws(EngineError) {
        guard Self.properties(cookie) != nil else {
            throw .engine("cookie '\(cookie.name)' for '\(cookie.domain)' has no name or domain; give it both")
        }
        await set(cookie)
    }

    private func set(_ cookie: EngineCookie) async {
        guard let httpCookie = Self.properties(cookie).flatMap(HTTPCookie.init(properties:)) else { return }
        await store.setCookie(httpCookie)
    }

    nonisolated func deleteCookie(_ cookie: EngineCookie) async throws(EngineError) {
        await delete(cookie)
    }

    private func delete(_ cookie: EngineCookie) async {
        guard let httpCookie = Self.properties(cookie).flatMap(HTTPCookie.init(properties:)) else { return }
        await store.deleteCookie(httpCookie)
    }

    func observeChanges(_ observer: @escaping @Sendable () -> Void) {
        // A closed engine's store is no longer registered with WebKit: nothing would ever call it.
        if attached { observers.append(observer) }
    }

    fileprivate func storeDidChange() {
        for observer in observers { observer() }
    }

    /// Whether the engine would send `cookie` to `url` (RFC 6265 §5.4): domain-match (exact for a host-only
    /// cookie), path-match with its `/` boundary, Secure only over https/wss, not expired. The path of a root
    /// URL (`https://a.com`, whose `path` is empty) is `/`.
    nonisolated static func matches(_ cookie: EngineCookie, url: URL, now: Date) -> Bool {
        guard let host = CookieDomain.canonicalHost(of: url) else { return false }
        let domain = cookie.domain.lowercased()
        let domainMatches =
            domain.hasPrefix(".")
            ? CookieDomain.domainMatches(host: host, domain: String(domain.dropFirst())) : host == domain
        guard domainMatches else { return false }
        let cookiePath = cookie.path.isEmpty ? "/" : cookie.path
        guard CookieDomain.pathMatches(requestPath: CookieDomain.requestPath(of: url), cookiePath: cookiePath)
        else { return false }
        let scheme = url.scheme?.lowercased() ?? ""
        if cookie.isSecure && scheme != "https" && scheme != "wss" { return false }
        if let expires = cookie.expires, expires <= now { return false }
        return true
    }

    nonisolated static func engineCookie(_ cookie: HTTPCookie) -> EngineCookie {
        EngineCookie(
            name: cookie.name, value: cookie.value, domain: cookie.domain, path: cookie.path,
            expires: cookie.expiresDate, isSecure: cookie.isSecure, isHTTPOnly: cookie.isHTTPOnly,
            sameSite: sameSite(cookie.sameSitePolicy))
    }

    nonisolated static func sameSite(_ policy: HTTPCookieStringPolicy?) -> EngineCookie.SameSite? {
        switch policy {
        case .some(.sameSiteLax): .lax
        case .some(.sameSiteStrict): .strict
        // Foundation has no constant for None: WebKit reports an unset or None attribute as nil.
        default: nil
        }
    }

    /// HTTPCookie properties for `cookie`; nil when it has no name or domain. SameSite uses Foundation's
    /// `HTTPCookieStringPolicy` constants (`sameSiteLax`, `sameSiteStrict`), the values HTTPCookie reads; None
    /// has no constant and is left unset, which WebKit treats as None.
    nonisolated static func properties(_ cookie: EngineCookie) -> [HTTPCookiePropertyKey: Any]? {
        guard !cookie.name.isEmpty, !cookie.domain.isEmpty else { return nil }
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: cookie.name, .value: cookie.value, .domain: cookie.domain,
            .path: cookie.path.isEmpty ? "/" : cookie.path,
        ]
        if let expires = cookie.expires { properties[.expires] = expires }
        if cookie.isSecure { properties[.secure] = "TRUE" }
        if cookie.isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        switch cookie.sameSite {
        case .some(.lax): properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteLax
        case .some(.strict): properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteStrict
        case .some(.none), nil: break
        }
        return properties
    }
}

/// What WebKit registers: forwards changes to the engine's cookie store while it lives.
@MainActor
final class CookieChangeRelay: NSObject, WKHTTPCookieStoreObserver {
    weak var owner: WKCookieStore?

    func cookiesDidChange(in cookieStore: WKHTTPCookieStore) {
        owner?.storeDidChange()
    }
}
#endif
