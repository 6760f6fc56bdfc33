import Foundation
import HybridCore

/// How browsers follow a redirect (Fetch, "HTTP-redirect fetch"): which statuses redirect, how the method and
/// body change, and what a cross-origin hop loses.
enum RedirectRule {
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The next hop after `hop` answered `status` with `location`.
    static func next(after hop: ProxyHop, status: Int, location: String) throws(ProxyError) -> ProxyHop {
        guard let target = URL(string: location, relativeTo: hop.url)?.absoluteURL else {
            throw .redirectRefused("\(hop.url.absoluteString) redirects to '\(location)', which is not a valid URL")
        }
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw .redirectRefused(
                "\(hop.url.absoluteString) redirects to a '\(scheme)' URL; only http and https are followed")
        }
        var next = hop
        next.url = ProxyHop.sendable(target)
        if (status == 301 || status == 302) && hop.method == "POST"
            || status == 303 && hop.method != "GET" && hop.method != "HEAD"
        {
            next.method = "GET"
            next.body = nil
            next.headers.removeAll { RequestHeaderRules.bodyHeaderNames.contains($0.name.lowercased()) }
        }
        if !WebOrigin.same(hop.url, next.url) {
            next.headers.removeAll { $0.name.lowercased() == "authorization" }
            next.crossedOrigins = true
        }
        return next
    }
}
