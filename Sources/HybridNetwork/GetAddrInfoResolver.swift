import Dispatch
import HybridKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system resolver, the one the HTTP client itself uses to connect. getaddrinfo blocks, so it runs on a
/// dispatch queue rather than on a thread of the cooperative pool.
///
/// DNS rebinding (a name answering a public address to this check and a private one a moment later) is closed by
/// connecting plain-http hops to the vetted addresses themselves (`ConnectionTarget`); https hops need the
/// certificate to match the name, which a device on the user's network cannot present.
public struct GetAddrInfoResolver: HostResolving {
    public init() {}

    public func addresses(of host: String) async throws(ProxyError) -> [IPAddress] {
        let result: Result<[IPAddress], ProxyError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Self.resolve(host)) }
        }
        return try result.get()
    }

    private static func resolve(_ host: String) -> Result<[IPAddress], ProxyError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            return .failure(.network("cannot resolve '\(host)': \(reason)"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = ipAddress(of: entry.pointee), !addresses.contains(address) { addresses.append(address) }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(.network("'\(host)' has no IPv4 or IPv6 address")) }
        return .success(addresses)
    }

    private static func ipAddress(of entry: addrinfo) -> IPAddress? {
        guard let socketAddress = entry.ai_addr else { return nil }
        switch entry.ai_family {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var address = pointer.pointee.sin_addr
                return .v4(withUnsafeBytes(of: &address) { Array($0) })
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                var address = pointer.pointee.sin6_addr
                return .v6(withUnsafeBytes(of: &address) { Array($0) })
            }
        default:
            return nil
        }
    }
}
