import Foundation

/// Where one hop really connects. For plain http to a name, the proxy connects to an address it vetted (with the
/// name in the Host header) instead of letting the client resolve the name again: otherwise a DNS server that
/// answers a public address to the check and a private one to the client (DNS rebinding) would reach the user's
/// network. https needs no pinning for that: the certificate must match the name, which a device on the user's
/// network cannot present, so the handshake fails before any request byte is sent.
struct ConnectionTarget: Sendable {
    /// The URL given to the HTTP client.
    let url: URL
    /// The Host header to send when `url` names an address instead of the hop's host.
    let hostHeader: String?

    /// The targets to try in order: the hop's URL as is, or one pinned URL per vetted address (IPv4 first, the
    /// family most likely to be reachable; the rest only when connecting to the previous one fails).
    static func targets(for url: URL, vettedAddresses: [IPAddress]?) -> [ConnectionTarget] {
        guard url.scheme?.lowercased() == "http", let addresses = vettedAddresses, !addresses.isEmpty,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let host = components.percentEncodedHost
        else { return [ConnectionTarget(url: url, hostHeader: nil)] }
        let hostHeader = components.port.map { $0 == 80 ? host : "\(host):\($0)" } ?? host
        let ordered =
            addresses.filter { if case .v4 = $0 { true } else { false } }
            + addresses.filter { if case .v6 = $0 { true } else { false } }
        let pinned = ordered.compactMap { address -> ConnectionTarget? in
            var pinned = components
            switch address {
            case .v4: pinned.percentEncodedHost = address.description
            case .v6: pinned.percentEncodedHost = "[\(address.description)]"
            }
            return pinned.url.map { ConnectionTarget(url: $0, hostHeader: hostHeader) }
        }
        return pinned.isEmpty ? [ConnectionTarget(url: url, hostHeader: nil)] : pinned
    }
}
