import HybridKit

/// Turns a host name into the addresses a connection to it could use, so the policy can judge them before the
/// proxy connects. A seam so unit tests can model names that resolve to private addresses.
public protocol HostResolving: Sendable {
    /// All addresses of `host` (a name; literals are parsed before the resolver is asked).
    func addresses(of host: String) async throws(ProxyError) -> [IPAddress]
}
