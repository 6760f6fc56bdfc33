import HybridKit
import HybridNetwork

/// The native networking `hybrid bench bodies` measures full proxy with: `NativeProxy`, allowed to reach the
/// benchmark's loopback server and nothing else.
enum BodiesBenchProxy {
    static let name = "NativeProxy"
    static func make() -> any RequestProxying {
        NativeProxy(
            policy: ProxyPolicy(
                allowedHosts: ["127.0.0.1"], allowedAddressKinds: [.loopback], maxRequestBodyBytes: 64 << 20))
    }
}
