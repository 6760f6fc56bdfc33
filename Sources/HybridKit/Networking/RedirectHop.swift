import Foundation

/// One request of a redirect chain as native networking sends it: the first request, then rewritten by each
/// redirect the way browsers rewrite it (``RedirectRule``). Shared by every native client that follows redirects
/// for a page (the full proxy, the package handler's network fallback).
public struct RedirectHop: Sendable {
    public var url: URL
    public var method: String
    /// Header fields in order; Authorization is dropped once the chain leaves the first hop's origin.
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// Set once the chain crossed origins: from then on the request's Origin is "null", as in Fetch.
    public var crossedOrigins: Bool

    public init(
        url: URL, method: String, headers: [(name: String, value: String)] = [], body: Data? = nil,
        crossedOrigins: Bool = false
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.crossedOrigins = crossedOrigins
    }

    /// The URL without what never goes on the wire: the fragment, and user:password (Fetch refuses those in URLs;
    /// they would otherwise become an Authorization header the page never set explicitly).
    public static func sendable(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.url ?? url
    }
}

/// Why a redirect is not followed; the message names the URLs involved.
public struct RedirectRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}

/// How browsers follow a redirect (Fetch, "HTTP-redirect fetch"): which statuses redirect, how the method and
/// body change, and what a cross-origin hop loses.
public enum RedirectRule {
    public static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
    /// What browsers allow in one chain before the fetch fails (Fetch: 20).
    public static let limit = 20
    /// Headers that describe a body; dropped with the body when a redirect turns the request into a GET.
    public static let bodyHeaderNames: Set<String> = [
        "content-encoding", "content-language", "content-location", "content-type",
    ]

    /// The next hop after `hop` answered `status` with `location`: 307 and 308 keep the method and body, 301 and
    /// 302 turn a POST into a GET, 303 turns everything but GET and HEAD into a GET without a body; a hop to
    /// another origin drops Authorization.
    public static func next(after hop: RedirectHop, status: Int, location: String) throws(RedirectRefusal)
        -> RedirectHop
    {
        guard let target = URL(string: location, relativeTo: hop.url)?.absoluteURL else {
            throw RedirectRefusal(
                reason: "\(hop.url.absoluteString) redirects to '\(location)', which is not a valid URL")
        }
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw RedirectRefusal(
                reason: "\(hop.url.absoluteString) redirects to a '\(scheme)' URL; only http and https are followed")
        }
        var next = hop
        next.url = RedirectHop.sendable(target)
        if (status == 301 || status == 302) && hop.method == "POST"
            || status == 303 && hop.method != "GET" && hop.method != "HEAD"
        {
            next.method = "GET"
            next.body = nil
            next.headers.removeAll { bodyHeaderNames.contains($0.name.lowercased()) }
        }
        if !WebOrigin.same(hop.url, next.url) {
            next.headers.removeAll { $0.name.lowercased() == "authorization" }
            next.crossedOrigins = true
        }
        return next
    }
}
