import Foundation
import HybridKit
import HybridNetwork
import Testing

/// Plain-http hops connect to the address the policy vetted, not to what the client would resolve later (DNS
/// rebinding): names below exist only in the test's resolver, so a request succeeds only if the proxy pinned it.
@Suite struct ProxyPinningTests {
    @Test func anHTTPHopConnectsToTheVettedAddressWithTheNameAsHost() async throws {
        let server = try await ProxyTestServer.start()
        let loopback = try #require(IPAddress("127.0.0.1"))
        var policy = loopbackPolicy()
        policy.allowedHosts = ["app.pinned.test"]
        let proxy = NativeProxy(
            policy: policy, resolver: FixedResolver(answers: ["app.pinned.test": [loopback]]))
        let url = try #require(URL(string: "http://app.pinned.test:\(server.port)/echo"))
        let outcome = await proxy.run(ProxiedRequest(url: url))

        let echo = try #require(outcome.echo, "\(outcome.events)")
        #expect(echo.values("host") == ["app.pinned.test:\(server.port)"])
        #expect(outcome.head?.url == url, "the page sees the URL it asked for, not the address")
    }

    @Test func aRefusedAddressFallsBackToTheNextVettedOne() async throws {
        let server = try await ProxyTestServer.start()
        // The server listens on 127.0.0.1 only, so 127.0.0.2 (also loopback on Linux) refuses the connection.
        let addresses = [try #require(IPAddress("127.0.0.2")), try #require(IPAddress("127.0.0.1"))]
        var policy = loopbackPolicy()
        policy.allowedHosts = ["two.pinned.test"]
        let proxy = NativeProxy(policy: policy, resolver: FixedResolver(answers: ["two.pinned.test": addresses]))
        let outcome = await proxy.run(
            ProxiedRequest(
                url: try #require(URL(string: "http://two.pinned.test:\(server.port)/echo")), method: "POST",
                body: Data("once".utf8)))
        let echo = try #require(outcome.echo, "\(outcome.events)")
        #expect(echo.bodyData == Data("once".utf8))
        #expect(server.requests.count == 1, "the body was sent once, on the address that answered")
    }

    @Test func aRedirectToANameIsPinnedToo() async throws {
        let server = try await ProxyTestServer.start()
        var policy = loopbackPolicy()
        policy.allowedHosts.append("next.pinned.test")
        let proxy = NativeProxy(
            policy: policy,
            resolver: FixedResolver(answers: [
                "next.pinned.test": [try #require(IPAddress("127.0.0.1"))]
            ]))
        let target = "http://next.pinned.test:\(server.port)/echo"
        let outcome = await proxy.run(ProxiedRequest(url: server.url("/redirect/302?to=\(target)")))
        let echo = try #require(outcome.echo, "\(outcome.events)")
        #expect(echo.values("host") == ["next.pinned.test:\(server.port)"])
        #expect(outcome.head?.url.absoluteString == target)
    }
}
