import Foundation

/// Tunables of a `CookieJar`. Defaults follow Chromium's limits and RFC 6265bis.
public struct CookieJarConfiguration: Sendable {
    /// Cookies kept per registrable domain (eTLD+1) before the least recently used are evicted.
    public var maxCookiesPerDomain: Int = 180
    /// Cookies kept in total before the least recently used are evicted.
    public var maxCookies: Int = 3000
    /// Expires / Max-Age are capped at this age (6265bis: 400 days).
    public var maxCookieAge: TimeInterval = SetCookieParser.defaultMaxAge
    /// How a cookie without a (valid) SameSite attribute is enforced. 6265bis lets user agents pick
    /// Lax ("Lax by default", Chromium) or None (WebKit); the default here is `.lax`.
    public var unspecifiedSameSiteEnforcement: UnspecifiedSameSite = .lax
    /// 6265bis §5.7: a `SameSite=None` cookie is refused unless it is also `Secure`.
    public var requireSecureForSameSiteNone: Bool = true
    /// Treat http://localhost and loopback IPs as secure ("potentially trustworthy"), as browsers do.
    public var treatLoopbackAsSecure: Bool = true
    /// Reading a cookie refreshes its last-access time (used for LRU eviction) at most this often,
    /// so hot lookups do not write on every call.
    public var lastAccessUpdateInterval: TimeInterval = 1
    /// Refuse `Domain=` set to a public suffix (unless it equals the host, then it becomes host-only).
    public var publicSuffixList: PublicSuffixList? = .shared

    public enum UnspecifiedSameSite: Sendable, Hashable {
        case lax
        case none
    }

    public init() {}

    /// Whether requests to `url` count as secure for the Secure attribute.
    public func isSecure(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https", "wss": return true
        default:
            guard treatLoopbackAsSecure, let host = CookieDomain.canonicalHost(of: url) else {
                return false
            }
            return host == "localhost" || host.hasSuffix(".localhost") || host == "::1"
                || host.hasPrefix("127.")
        }
    }
}
