import Foundation

/// A URL's origin (scheme, host, port with defaults filled in): what "same origin" compares.
public struct WebOrigin: Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int

    /// nil for URLs without an http(s) origin (custom schemes, data:, URLs without a host).
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(percentEncoded: false), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = Self.normalizedHost(host)
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    public static func same(_ a: URL, _ b: URL) -> Bool {
        guard let left = WebOrigin(a), let right = WebOrigin(b) else { return false }
        return left == right
    }

    /// Lower case, no trailing dot ("example.com." is the same host), no IPv6 brackets.
    public static func normalizedHost(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// As in an Origin header.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? "\(scheme)://\(shownHost)" : "\(scheme)://\(shownHost):\(port)"
    }
}
