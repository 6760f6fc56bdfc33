import Foundation

/// How a request relates to the top-level site, for SameSite enforcement (6265bis §5.2, §5.8.3).
public enum SameSiteContext: Sendable, Hashable {
    /// The request's site equals the top-level site (and every ancestor's): all cookies apply.
    case sameSite
    /// Cross-site, but a top-level navigation (the URL bar changes) using `method`.
    /// Lax cookies are sent for safe methods (GET, HEAD, OPTIONS, TRACE).
    case crossSiteTopLevelNavigation(method: String)
    /// Cross-site subresource, iframe, fetch/XHR or form POST in a frame: only SameSite=None.
    case crossSite

    /// Computes the context from the request URL and the top-level document URL.
    ///
    /// "Schemeful same-site": same registrable domain and same scheme class (https vs http).
    /// `topLevelURL == nil` means there is no document (the app itself makes the request, or the
    /// request navigates the top level), which is treated as same-site.
    public static func compute(
        requestURL: URL,
        topLevelURL: URL?,
        isTopLevelNavigation: Bool,
        method: String = "GET",
        publicSuffixList: PublicSuffixList = .shared
    ) -> SameSiteContext {
        guard let topLevelURL else { return .sameSite }
        if isSameSite(requestURL, topLevelURL, publicSuffixList: publicSuffixList) { return .sameSite }
        return isTopLevelNavigation ? .crossSiteTopLevelNavigation(method: method) : .crossSite
    }

    public static func isSameSite(_ a: URL, _ b: URL, publicSuffixList: PublicSuffixList = .shared)
        -> Bool
    {
        guard let hostA = CookieDomain.canonicalHost(of: a),
            let hostB = CookieDomain.canonicalHost(of: b)
        else {
            return false
        }
        let secureA = ["https", "wss"].contains(a.scheme?.lowercased() ?? "")
        let secureB = ["https", "wss"].contains(b.scheme?.lowercased() ?? "")
        return secureA == secureB
            && publicSuffixList.site(of: hostA) == publicSuffixList.site(of: hostB)
    }

    /// Whether the HTTP method is "safe" (RFC 9110 §9.2.1), which lets Lax cookies ride along.
    static func isSafeMethod(_ method: String) -> Bool {
        ["GET", "HEAD", "OPTIONS", "TRACE"].contains(method.uppercased())
    }
}
