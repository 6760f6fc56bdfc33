import Foundation
import HybridKit
@testable import HybridNetwork
import Testing

/// The engine-free rules: address classification, host patterns, header rules, redirect rewriting.
@Suite struct AddressRulesTests {
    static let kinds: [(String, SpecialAddressKind?)] = [
        ("127.0.0.1", .loopback), ("127.255.0.9", .loopback), ("::1", .loopback),
        ("10.9.9.9", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
        ("172.32.0.1", nil), ("192.168.0.1", .privateNetwork), ("169.254.1.1", .linkLocal), ("fe80::1", .linkLocal),
        ("fc00::1", .uniqueLocal), ("fdff::1", .uniqueLocal), ("100.64.0.1", .sharedAddressSpace),
        ("100.127.255.255", .sharedAddressSpace), ("100.128.0.1", nil), ("0.0.0.0", .unspecified),
        ("::", .unspecified), ("224.0.0.1", .reserved), ("255.255.255.255", .reserved), ("ff02::1", .reserved),
        ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .privateNetwork), ("::ffff:8.8.8.8", nil),
        ("::127.0.0.1", .loopback), ("64:ff9b::a00:1", .privateNetwork), ("2002:a9fe:a9fe::", .linkLocal),
        ("8.8.8.8", nil), ("93.184.216.34", nil), ("2606:4700::1111", nil),
        // IPv4-translated (SIIT), local-use NAT64, IETF protocol assignments; benchmarking stays public (fake-IP VPNs).
        ("::ffff:0:127.0.0.1", .loopback), ("::ffff:0:8.8.8.8", nil), ("64:ff9b:1::a00:1", .privateNetwork),
        ("64:ff9b:1:ffff::8.8.8.8", .privateNetwork), ("192.0.0.170", .reserved), ("192.0.1.1", nil),
        ("198.18.0.1", nil),
    ]

    @Test(arguments: kinds) func addressKinds(_ entry: (String, SpecialAddressKind?)) throws {
        let address = try #require(IPAddress(entry.0))
        #expect(SpecialAddressKind.of(address) == entry.1)
    }

    @Test func literalsParseStrictly() {
        #expect(IPAddress("[::1]") == IPAddress("::1"))
        #expect(IPAddress("fe80::1%eth0") == IPAddress("fe80::1"))
        #expect(IPAddress("127.1") == nil, "shorthand forms are names, resolved and then judged")
        #expect(IPAddress("example.com") == nil)
        #expect(IPAddress("::ffff:127.0.0.1")?.description == "::ffff:127.0.0.1")
    }

    @Test func hostPatterns() {
        let suffix = HostPattern("*.Example.com")
        #expect(suffix.matches("api.example.com"))
        #expect(suffix.matches("a.b.EXAMPLE.com."))
        #expect(!suffix.matches("example.com"))
        #expect(!suffix.matches("badexample.com"))
        #expect(HostPattern("example.com").matches("EXAMPLE.com."))
        #expect(!HostPattern("example.com").matches("api.example.com"))
        #expect(HostPattern("[::1]").matches("::1"))
    }

    @Test func methodsAreNormalisedAndForbiddenOnesRefused() {
        #expect(RequestHeaderRules.method("post") == "POST")
        #expect(RequestHeaderRules.method("patch") == "patch", "Fetch upper-cases only the six standard methods")
        #expect(RequestHeaderRules.method("trace") == nil)
        #expect(RequestHeaderRules.method("GET /x") == nil)
    }

    @Test func redirectRewritesResolveRelativeLocationsAndDropFragments() throws {
        let hop = try ProxyHop.first(
            ProxiedRequest(url: try #require(URL(string: "https://user:pw@a.example/x/y#frag"))),
            policy: ProxyPolicy(allowedHosts: []))
        #expect(hop.url.absoluteString == "https://a.example/x/y")
        let next = try RedirectRule.next(after: hop, status: 302, location: "../z?q=1#f")
        #expect(next.url.absoluteString == "https://a.example/z?q=1")
        #expect(!next.crossedOrigins)
        let cross = try RedirectRule.next(after: next, status: 302, location: "https://a.example:444/")
        #expect(cross.crossedOrigins, "another port is another origin")
    }
}
