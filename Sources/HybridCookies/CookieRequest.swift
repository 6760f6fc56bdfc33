import Foundation

/// Which kind of API touches the jar: HTTP (headers of a request/response) or a non-HTTP API
/// such as `document.cookie`, which may never see or set HttpOnly cookies.
public enum CookieAPI: Sendable, Hashable {
    case http
    case nonHTTP
}

/// Everything the jar needs to know about a request to decide which cookies go with it, or which
/// Set-Cookie headers of its response to accept.
public struct CookieRequest: Sendable, Hashable {
    public var url: URL
    public var api: CookieAPI
    public var sameSiteContext: SameSiteContext

    public init(url: URL, api: CookieAPI = .http, sameSiteContext: SameSiteContext = .sameSite) {
        self.url = url
        self.api = api
        self.sameSiteContext = sameSiteContext
    }

    /// A request the app itself makes (or a top-level navigation): HTTP API, same-site.
    public static func http(_ url: URL) -> CookieRequest { CookieRequest(url: url) }
}
