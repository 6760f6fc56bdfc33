import Foundation
import HybridKit

/// One request of a redirect chain as the proxy will send it: the page's request after the safety rules, then
/// rewritten by each redirect by `RedirectRule` (shared with the package handler's network fallback).
typealias ProxyHop = RedirectHop

extension RedirectHop {
    /// The first hop, or the reason the request may not be sent at all.
    static func first(_ request: ProxiedRequest, policy: ProxyPolicy) throws(ProxyError) -> ProxyHop {
        let scheme = request.url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard let method = RequestHeaderRules.method(request.method) else {
            throw .network(
                "the method '\(request.method)' is forbidden for pages (CONNECT, TRACE and TRACK are) or not a valid token"
            )
        }
        if let size = request.streamedBody?.count ?? request.body?.count, size > policy.maxRequestBodyBytes {
            throw .requestBodyTooLarge(limit: policy.maxRequestBodyBytes)
        }
        // GET and HEAD carry no body in Fetch; sending one would surprise servers and caches.
        let body = method == "GET" || method == "HEAD" ? nil : request.body
        return ProxyHop(
            url: Self.sendable(request.url), method: method, headers: RequestHeaderRules.allowed(request.headers),
            body: body)
    }
}
