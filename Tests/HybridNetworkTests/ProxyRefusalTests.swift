import Foundation
import HybridKit
import HybridNetwork
import Testing

/// What the proxy refuses before it connects anywhere.
@Suite struct ProxyRefusalTests {
    @Test func loopbackIsRefusedByDefaultEvenForAnAllowedHost() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: ProxyPolicy(allowedHosts: ["127.0.0.1", "localhost"]))
        let literal = await proxy.run(ProxiedRequest(url: server.url("/echo")))
        #expect(literal.error == .addressNotAllowed(host: "127.0.0.1", address: "127.0.0.1"))
        // A name is judged by what it resolves to.
        let named = await proxy.run(ProxiedRequest(url: server.url("/echo", host: "localhost")))
        guard case .addressNotAllowed(let host, _) = named.error else {
            Issue.record("expected addressNotAllowed for localhost, got \(named.events)")
            return
        }
        #expect(host == "localhost")
        #expect(server.requests.isEmpty, "nothing reached the server")
    }

    static let privateTargets: [(url: String, host: String, address: String)] = [
        ("http://10.0.0.1/", "10.0.0.1", "10.0.0.1"),
        ("http://172.20.1.1/", "172.20.1.1", "172.20.1.1"),
        ("http://192.168.1.1/", "192.168.1.1", "192.168.1.1"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254", "169.254.169.254"),
        ("http://100.64.0.1/", "100.64.0.1", "100.64.0.1"),
        ("http://0.0.0.0/", "0.0.0.0", "0.0.0.0"),
        ("http://[::1]/", "::1", "::1"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1", "::ffff:127.0.0.1"),
        ("http://[fe80::1]/", "fe80::1", "fe80::1"),
        ("http://[fd00::1]/", "fd00::1", "fd00::1"),
        // getaddrinfo reads these old numeric forms as 127.0.0.1.
        ("http://2130706433/", "2130706433", "127.0.0.1"),
        ("http://127.1/", "127.1", "127.0.0.1"),
    ]

    @Test(arguments: privateTargets) func privateAddressesAreRefused(
        _ target: (url: String, host: String, address: String)
    )
        async throws
    {
        let url = try #require(URL(string: target.url))
        let host = try #require(url.host(percentEncoded: false)).trimmingCharacters(in: ["[", "]"])
        // The host itself is allowed: the address check alone must refuse it.
        let proxy = NativeProxy(policy: ProxyPolicy(allowedHosts: [HostPattern(host)], timeout: .seconds(10)))
        let outcome = await proxy.run(ProxiedRequest(url: url))
        guard case .addressNotAllowed(let refusedHost, let address) = outcome.error else {
            Issue.record("expected addressNotAllowed for \(target.url), got \(outcome.events)")
            return
        }
        #expect(refusedHost == target.host)
        #expect(IPAddress(address) == IPAddress(target.address))
    }

    @Test func aHostOutsideTheListIsRefused() async throws {
        let proxy = NativeProxy(policy: ProxyPolicy(allowedHosts: ["*.example.com"]))
        let outcome = await proxy.run(ProxiedRequest(url: try #require(URL(string: "https://example.org/"))))
        #expect(outcome.error == .hostNotAllowed("example.org"))
        #expect(outcome.error?.description.contains("allowed hosts") == true)
    }

    @Test func onlyHTTPAndHTTPSAreProxied() async throws {
        let proxy = NativeProxy(policy: ProxyPolicy(allowedHosts: ["*.example.com"]))
        let outcome = await proxy.run(ProxiedRequest(url: URL(fileURLWithPath: "/etc/passwd")))
        #expect(outcome.error == .unsupportedScheme("file"))
    }

    @Test func aNameResolvingToAPrivateAddressIsRefused() async throws {
        let resolver = FixedResolver(answers: [
            "intranet.example.com": [try #require(IPAddress("93.184.216.34")), try #require(IPAddress("10.1.2.3"))]
        ])
        let proxy = NativeProxy(policy: ProxyPolicy(allowedHosts: ["*.example.com"]), resolver: resolver)
        let outcome = await proxy.run(
            ProxiedRequest(url: try #require(URL(string: "https://intranet.example.com/"))))
        #expect(outcome.error == .addressNotAllowed(host: "intranet.example.com", address: "10.1.2.3"))
    }

    @Test func aRedirectIntoAPrivateRangeIsRefused() async throws {
        let server = try await ProxyTestServer.start()
        var policy = loopbackPolicy()
        policy.allowedHosts.append("10.0.0.1")
        let proxy = NativeProxy(policy: policy)
        let outcome = await proxy.run(ProxiedRequest(url: server.url("/redirect/302?to=http://10.0.0.1/admin")))
        #expect(outcome.error == .addressNotAllowed(host: "10.0.0.1", address: "10.0.0.1"))
        #expect(outcome.head == nil)

        let elsewhere = await proxy.run(ProxiedRequest(url: server.url("/redirect/307?to=http://evil.example/")))
        #expect(elsewhere.error == .hostNotAllowed("evil.example"))
    }

    @Test func forbiddenMethodsAreRefused() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        for method in ["TRACE", "connect", "Track"] {
            let outcome = await proxy.run(ProxiedRequest(url: server.url("/echo"), method: method))
            guard case .network(let why) = outcome.error else {
                Issue.record("expected a refusal for \(method), got \(outcome.events)")
                continue
            }
            #expect(why.contains("forbidden"))
        }
        #expect(server.requests.isEmpty)
    }
}
