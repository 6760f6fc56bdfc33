import Foundation

/// Native networking that performs a page's request on its behalf (the "full proxy" strategy of the request
/// hooks). The implementation owns the safety rules — which hosts may be reached, address ranges, forbidden
/// headers, size limits, redirects followed the way browsers follow them — so callers only translate.
///
/// Called from any thread; events arrive on any thread, in order: one `response`, any number of `data`, then
/// `finished`; or `failed` at any point (after which nothing more arrives).
public protocol RequestProxying: Sendable {
    func perform(_ request: ProxiedRequest, events: @escaping @Sendable (ProxyEvent) -> Void) -> any ProxyCancelling

    /// The jar the proxy sends cookies from and stores them in; nil when it sends none. A cache in front of the
    /// proxy (``CachingProxy``) reads it so that a stored answer is only used for the cookies it was fetched with.
    var cookieHandler: (any HTTPCookieHandling)? { get }
}

extension RequestProxying {
    public var cookieHandler: (any HTTPCookieHandling)? { nil }
}

/// A request in flight; `cancel()` ends it with `.failed(.cancelled)` unless it already ended.
public protocol ProxyCancelling: Sendable {
    func cancel()
}

/// What the page asked for, after the hook translated it. `url` is the real http(s) URL (custom-scheme URLs that
/// stand for one are mapped by the caller).
public struct ProxiedRequest: Sendable {
    public enum Credentials: String, Sendable { case omit, sameOrigin = "same-origin", include }
    public enum RedirectMode: String, Sendable { case follow, error, manual }

    public var url: URL
    public var method: String
    /// Header fields as the page set them, in order. Forbidden ones (Host, Content-Length, Cookie, …) are dropped
    /// by the proxy, not trusted.
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// The body as a stream, when its bytes may still be arriving; a proxy that supports it sends it instead of
    /// `body` (which then holds the same bytes if they all arrived before the request started, or nil).
    public var streamedBody: (any RequestBodySource)?
    /// The URL of the page (or frame) that made the request: the origin for credentials and SameSite decisions.
    public var firstParty: URL?
    public var credentials: Credentials
    public var redirect: RedirectMode

    public init(
        url: URL, method: String = "GET", headers: [(name: String, value: String)] = [], body: Data? = nil,
        firstParty: URL? = nil, credentials: Credentials = .sameOrigin, redirect: RedirectMode = .follow
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.firstParty = firstParty
        self.credentials = credentials
        self.redirect = redirect
    }
}

/// The head of the final response (after redirects were followed).
public struct ProxiedResponseHead: Sendable {
    public var statusCode: Int
    public var reasonPhrase: String
    /// Header fields as received, in order, repeated names kept (Set-Cookie is consumed by the proxy's cookie
    /// handler and not passed on).
    public var headers: [(name: String, value: String)]
    /// The URL that answered: differs from the request's when redirects were followed.
    public var url: URL
    public var redirected: Bool
    /// How many redirect hops re-sent the request body (307 and 308 keep it).
    public var bodyResends: Int

    public init(
        statusCode: Int, reasonPhrase: String, headers: [(name: String, value: String)], url: URL, redirected: Bool,
        bodyResends: Int = 0
    ) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.url = url
        self.redirected = redirected
        self.bodyResends = bodyResends
    }
}

public enum ProxyEvent: Sendable {
    case response(ProxiedResponseHead)
    case data(Data)
    case finished
    case failed(ProxyError)
}

/// Why the proxy refused or could not complete a request. The message says what to change.
public enum ProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    case unsupportedScheme(String)
    case hostNotAllowed(String)
    case addressNotAllowed(host: String, address: String)
    case requestBodyTooLarge(limit: Int)
    /// A streamed request body stopped before its end (the page abandoned or never finished the upload).
    case requestBodyFailed(String)
    case responseTooLarge(limit: Int)
    case tooManyRedirects(limit: Int)
    case redirectRefused(String)
    case network(String)
    case cancelled

    public var description: String {
        switch self {
        case .unsupportedScheme(let scheme):
            "the proxy only performs http and https requests, not '\(scheme)'"
        case .hostNotAllowed(let host):
            "host '\(host)' is not in the proxy's allowed hosts; add it to the configuration if the page may reach it"
        case .addressNotAllowed(let host, let address):
            "'\(host)' resolves to \(address), a loopback, private or link-local address the configuration does not allow"
        case .requestBodyTooLarge(let limit):
            "the request body is larger than the proxy's limit of \(limit) bytes"
        case .requestBodyFailed(let why):
            "the request body did not arrive in full: \(why)"
        case .responseTooLarge(let limit):
            "the response is larger than the proxy's limit of \(limit) bytes"
        case .tooManyRedirects(let limit):
            "more than \(limit) redirects"
        case .redirectRefused(let why):
            "redirect refused: \(why)"
        case .network(let why):
            "network error: \(why)"
        case .cancelled:
            "cancelled"
        }
    }

    /// What the page is told: the description, less what the page must not learn from the app's network (the
    /// address a name resolved to: a page could map an intranet through a wildcard-allowed host). The log keeps
    /// the whole description.
    public var pageMessage: String {
        switch self {
        case .addressNotAllowed(let host, _):
            "'\(host)' resolves to a loopback, private or link-local address the configuration does not allow"
        default: description
        }
    }
}
