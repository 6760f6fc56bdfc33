/// Address ranges that reach the device itself or a network behind it rather than the public internet. The proxy
/// refuses them unless the policy allows the kind: a page must not use native networking to probe the user's
/// router, a cloud metadata endpoint (169.254.169.254) or services on the device.
public enum SpecialAddressKind: String, Sendable, Hashable, CaseIterable {
    /// 127.0.0.0/8, ::1
    case loopback
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fec0::/10 (deprecated site-local), 64:ff9b:1::/48 (local-use
    /// NAT64, RFC 8215: whatever a network translates it to is its own)
    case privateNetwork
    /// 169.254.0.0/16, fe80::/10
    case linkLocal
    /// fc00::/7
    case uniqueLocal
    /// 100.64.0.0/10 (carrier-grade NAT, RFC 6598)
    case sharedAddressSpace
    /// 0.0.0.0/8, :: (many systems connect these to the local host)
    case unspecified
    /// Multicast, broadcast and reserved ranges (224.0.0.0/3, 192.0.0.0/24, ff00::/8): never a web server.
    case reserved

    /// The kind of `address`, or nil for an ordinary public address. IPv6 forms that carry an IPv4 address
    /// (mapped ::ffff:a.b.c.d, translated ::ffff:0:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4
    /// 2002::/16) are judged by that address. 198.18.0.0/15 (benchmarking) counts as public: VPN apps on iOS answer
    /// every name with an address from it, so refusing it would refuse every host under them.
    public static func of(_ address: IPAddress) -> SpecialAddressKind? {
        switch address {
        case .v4(let b): return ofIPv4(b)
        case .v6(let b): return ofIPv6(b)
        }
    }

    private static func ofIPv4(_ b: [UInt8]) -> SpecialAddressKind? {
        guard b.count == 4 else { return .reserved }
        switch (b[0], b[1]) {
        case (0, _): return .unspecified
        case (127, _): return .loopback
        case (10, _), (172, 16...31), (192, 168): return .privateNetwork
        case (169, 254): return .linkLocal
        case (100, 64...127): return .sharedAddressSpace
        case (224...255, _): return .reserved
        case (192, 0) where b[2] == 0: return .reserved
        default: return nil
        }
    }

    private static func ofIPv6(_ b: [UInt8]) -> SpecialAddressKind? {
        guard b.count == 16 else { return .reserved }
        let first10Zero = b[0..<10].allSatisfy { $0 == 0 }
        if first10Zero, b[10] == 0xff, b[11] == 0xff { return ofIPv4(Array(b[12..<16])) }
        if b[0..<8].allSatisfy({ $0 == 0 }), b[8] == 0xff, b[9] == 0xff, b[10] == 0, b[11] == 0 {
            return ofIPv4(Array(b[12..<16]))
        }
        if b[0..<12].allSatisfy({ $0 == 0 }) {
            if b[12..<15].allSatisfy({ $0 == 0 }) {
                switch b[15] {
                case 0: return .unspecified
                case 1: return .loopback
                default: return .reserved
                }
            }
            return ofIPv4(Array(b[12..<16]))
        }
        if b[0..<4] == [0x00, 0x64, 0xff, 0x9b], b[4..<12].allSatisfy({ $0 == 0 }) {
            return ofIPv4(Array(b[12..<16]))
        }
        if b[0..<6] == [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01] { return .privateNetwork }
        if b[0] == 0x20, b[1] == 0x02 { return ofIPv4(Array(b[2..<6])) }
        if b[0] == 0xff { return .reserved }
        if b[0] & 0xfe == 0xfc { return .uniqueLocal }
        if b[0] == 0xfe, b[1] & 0xc0 == 0x80 { return .linkLocal }
        if b[0] == 0xfe, b[1] & 0xc0 == 0xc0 { return .privateNetwork }
        return nil
    }
}
