import Foundation

/// Host canonicalisation and the domain-match / path-match rules of RFC 6265 §5.1.
///
/// IDNA: hosts are expected in their ASCII (punycode) form. Foundation's `URL.host` already
/// returns IDN hosts punycoded (`http://bücher.example` → `xn--bcher-kva.example`, checked on Linux
/// Foundation in Swift 6.3), so this module only lower-cases; a host that is still non-ASCII is refused.
public enum CookieDomain {
    /// The canonical host of `url`: lower-case ASCII, IPv6 without brackets. `nil` when there is no host.
    public static func canonicalHost(of url: URL) -> String? {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.lowercased()
    }

    public static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// IP literals never domain-match anything but themselves.
    public static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }  // IPv6
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }
    }

    /// RFC 6265 §5.1.3: identical, or `domain` is a dot-aligned suffix of a non-IP `host`.
    public static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        guard host.utf8.count > domain.utf8.count,
            host.utf8.reversed().starts(with: domain.utf8.reversed()), !isIPAddress(host)
        else { return false }
        let boundary = host.utf8.index(host.utf8.endIndex, offsetBy: -(domain.utf8.count + 1))
        return host.utf8[boundary] == UInt8(ascii: ".")
    }

    /// RFC 6265 §5.1.4 default-path of a request path (the percent-encoded path of the URL).
    public static func defaultPath(forRequestPath path: String) -> String {
        guard path.utf8.first == UInt8(ascii: "/"),
            let lastSlash = path.utf8.lastIndex(of: UInt8(ascii: "/")),
            lastSlash != path.startIndex
        else { return "/" }
        return String(path[..<lastSlash])
    }

    /// The request path used for matching: the percent-encoded path, "/" when empty.
    public static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// RFC 6265 §5.1.4 path-match.
    public static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
        if cookiePath.utf8.last == UInt8(ascii: "/") { return true }
        let next = requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)
        return next < requestPath.utf8.endIndex && requestPath.utf8[next] == UInt8(ascii: "/")
    }
}
