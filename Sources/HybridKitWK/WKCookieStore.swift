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
    @MainActor
    final class WKCookieStore: NSObject, EngineCookieStore, WKHTTPCookieStoreObserver {
        private let store: WKHTTPCookieStore
        private var observers: [@Sendable () -> Void] = []

        init(store: WKHTTPCookieStore) {
            self.store = store
            super.init()
            store.add(self)
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

        nonisolated func observeChanges(_ observer: @escaping @Sendable () -> Void) {
            onMain { self.observers.append(observer) }
        }

        func cookiesDidChange(in cookieStore: WKHTTPCookieStore) {
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
#endif
