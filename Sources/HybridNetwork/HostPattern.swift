import HybridKit

/// One entry of the proxy's allowed hosts: an exact host ("api.example.com", "127.0.0.1", "::1") or every
/// subdomain of a suffix ("*.example.com" matches "a.example.com" and "a.b.example.com", not "example.com":
/// list the apex separately when it is meant).
public struct HostPattern: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    private enum Kind: Sendable, Hashable {
        case exact(String)
        case subdomains(of: String)
    }

    private let kind: Kind

    public init(_ pattern: String) {
        let host = Self.normalized(pattern)
        if host.hasPrefix("*.") {
            kind = .subdomains(of: String(host.dropFirst(2)))
        } else {
            kind = .exact(host)
        }
    }

    public init(stringLiteral value: String) { self.init(value) }

    public func matches(_ host: String) -> Bool {
        let host = Self.normalized(host)
        switch kind {
        case .exact(let exact): return host == exact
        case .subdomains(let suffix): return !suffix.isEmpty && host.hasSuffix("." + suffix)
        }
    }

    public var description: String {
        switch kind {
        case .exact(let host): host
        case .subdomains(let suffix): "*." + suffix
        }
    }

    /// Lower case, no trailing dot ("example.com." is the same host), no IPv6 brackets.
    static func normalized(_ host: String) -> String { WebOrigin.normalizedHost(host) }
}
