import Foundation
import HybridCore

/// One request of a redirect chain as the proxy will send it: the page's request after the safety rules, then
/// rewritten by each redirect the way browsers rewrite it.
struct ProxyHop: Sendable {
    var url: URL
    var method: String
    /// The page's headers that survived the rules (never Cookie, Host, …; Authorization until a cross-origin hop).
    var headers: [(name: String, value: String)]
    var body: ProxyBody?
    /// Set once the chain crossed origins: from then on the request's Origin is "null", as in Fetch.
    var crossedOrigins = false

    /// The first hop, or the reason the request may not be sent at all.
    static func first(_ request: ProxiedRequest, policy: ProxyPolicy) throws(ProxyError) -> ProxyHop {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard let method = RequestHeaderRules.method(request.method) else {
            throw .network(
                "the method '\(request.method)' is forbidden for pages (CONNECT, TRACE and TRACK are) or not a valid token"
            )
        }
        let given = ProxyBody(request)
        if let given, given.count > policy.maxRequestBodyBytes {
            throw .requestBodyTooLarge(limit: policy.maxRequestBodyBytes)
        }
        // GET and HEAD carry no body in Fetch; sending one would surprise servers and caches.
        let body = method == "GET" || method == "HEAD" ? nil : given
        return ProxyHop(
            url: Self.sendable(request.url), method: method, headers: RequestHeaderRules.allowed(request.headers),
            body: body)
    }

    /// The URL without what never goes on the wire: the fragment, and user:password (Fetch refuses those in URLs;
    /// they would otherwise become an Authorization header the page never set explicitly).
    static func sendable(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.url ?? url
    }
}
