import Foundation
import HybridKit

/// What the native proxy may do on a page's behalf. Secure by default: no host is allowed until listed, and
/// loopback, private and link-local addresses stay refused even for listed hosts unless their kind is allowed.
public struct ProxyPolicy: Sendable {
    /// Hosts the proxy may reach, at every hop of a redirect chain.
    public var allowedHosts: [HostPattern]
    /// Special address ranges allowed anyway (tests against 127.0.0.1 allow `.loopback`).
    public var allowedAddressKinds: Set<SpecialAddressKind>
    /// A larger request body is refused before anything is sent.
    public var maxRequestBodyBytes: Int
    /// A response body that grows past this is cut off with `ProxyError.responseTooLarge`.
    public var maxResponseBodyBytes: Int
    /// The whole exchange, redirects and body included, must end within this time.
    public var timeout: Duration
    /// Sent as User-Agent on every native request; set it to the engine's so servers see one client.
    public var userAgent: String
    /// Browsers stop after 20.
    public var redirectLimit: Int

    public static let defaultUserAgent =
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) HybridKit"

    public init(
        allowedHosts: [HostPattern],
        allowedAddressKinds: Set<SpecialAddressKind> = [],
        maxRequestBodyBytes: Int = 10 << 20,
        maxResponseBodyBytes: Int = 50 << 20,
        timeout: Duration = .seconds(60),
        userAgent: String = ProxyPolicy.defaultUserAgent,
        redirectLimit: Int = 20
    ) {
        self.allowedHosts = allowedHosts
        self.allowedAddressKinds = allowedAddressKinds
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.maxResponseBodyBytes = maxResponseBodyBytes
        self.timeout = timeout
        self.userAgent = userAgent
        self.redirectLimit = redirectLimit
    }

    public func allows(host: String) -> Bool { allowedHosts.contains { $0.matches(host) } }

    /// Checks a URL the proxy is about to connect to: scheme, host, and every address the host stands for (all of
    /// them: the client may connect to any). Returns the vetted addresses of a name, nil for a literal address.
    @discardableResult
    func vet(_ url: URL, resolver: any HostResolving) async throws(ProxyError) -> [IPAddress]? {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard let rawHost = url.host(percentEncoded: false), !rawHost.isEmpty else {
            throw .hostNotAllowed(url.absoluteString)
        }
        let host = HostPattern.normalized(rawHost)
        guard allows(host: host) else { throw .hostNotAllowed(host) }
        let literal = IPAddress(host)
        let addresses: [IPAddress]
        if let literal {
            addresses = [literal]
        } else {
            addresses = try await resolver.addresses(of: host)
        }
        for address in addresses {
            if let kind = SpecialAddressKind.of(address), !allowedAddressKinds.contains(kind) {
                throw .addressNotAllowed(host: host, address: address.description)
            }
        }
        return literal == nil ? addresses : nil
    }
}
