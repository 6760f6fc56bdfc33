import Foundation

/// A URL's origin (scheme, host, port with defaults filled in): what "same origin" compares.
struct WebOrigin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(percentEncoded: false), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = HostPattern.normalized(host)
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    static func same(_ a: URL, _ b: URL) -> Bool {
        guard let left = WebOrigin(a), let right = WebOrigin(b) else { return false }
        return left == right
    }

    /// As in an Origin header.
    var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? "\(scheme)://\(shownHost)" : "\(scheme)://\(shownHost):\(port)"
    }
}
