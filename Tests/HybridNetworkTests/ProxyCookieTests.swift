import Foundation
import HybridKit
import HybridNetwork
import Testing

/// Cookies and credentials across hops: 127.0.0.1 and localhost are two hosts (two origins) of the same server.
@Suite struct ProxyCookieTests {
    @Test func sameOriginCredentialsStopAtTheCrossOriginHop() async throws {
        let server = try await ProxyTestServer.start()
        let jar = RecordingCookieJar(preset: ["127.0.0.1": ["ip=1"], "localhost": ["lh=1"]])
        let proxy = NativeProxy(policy: loopbackPolicy(), cookies: jar)
        let target = server.base("localhost") + "/echo"
        let request = ProxiedRequest(
            url: server.url("/redirect/302?to=\(target)&cookie=s%3D9%3B%20Path%3D/"),
            headers: [("Authorization", "Bearer secret")], firstParty: server.url("/page.html"),
            credentials: .sameOrigin)
        let outcome = await proxy.run(request)

        let echo = try #require(outcome.echo, "\(outcome.events)")
        let seen = server.requests
        try #require(seen.count == 2)
        #expect(seen[0].values("cookie") == ["ip=1"])
        #expect(seen[0].values("authorization") == ["Bearer secret"])
        #expect(echo.values("cookie").isEmpty, "no cookies for the cross-origin hop in same-origin mode")
        #expect(echo.values("authorization").isEmpty, "Authorization never follows a redirect to another origin")
        #expect(echo.values("origin") == ["null"], "the chain crossed origins")
        // The redirect's own Set-Cookie reached the jar, from the hop that sent it.
        #expect(jar.stored.map(\.values) == [["s=9; Path=/"]])
        #expect(jar.stored.first?.url.host() == "127.0.0.1")
        #expect(outcome.head?.url.host() == "localhost")
    }

    @Test func includeCredentialsAsksTheJarForEachHopsOwnCookies() async throws {
        let server = try await ProxyTestServer.start()
        let jar = RecordingCookieJar(preset: ["127.0.0.1": ["ip=1"], "localhost": ["lh=1"]])
        let proxy = NativeProxy(policy: loopbackPolicy(), cookies: jar)
        let target = server.base("localhost") + "/echo"
        let request = ProxiedRequest(
            url: server.url("/redirect/307?to=\(target)"), method: "POST",
            headers: [("Authorization", "Bearer secret")], body: Data("x".utf8), firstParty: server.url("/page.html"),
            credentials: .include)
        let outcome = await proxy.run(request)

        let echo = try #require(outcome.echo, "\(outcome.events)")
        #expect(echo.values("cookie") == ["lh=1"], "the second host's cookies, never the first host's")
        #expect(echo.values("authorization").isEmpty)
        #expect(echo.bodyData == Data("x".utf8))
        #expect(jar.asked.map { $0.host() ?? "" } == ["127.0.0.1", "localhost"])
    }

    @Test func sameOriginRedirectKeepsAuthorizationAndCookies() async throws {
        let server = try await ProxyTestServer.start()
        let jar = RecordingCookieJar(preset: ["127.0.0.1": ["ip=1"]])
        let proxy = NativeProxy(policy: loopbackPolicy(), cookies: jar)
        let request = ProxiedRequest(
            url: server.url("/redirect/302?to=/echo"), headers: [("Authorization", "Bearer secret")],
            firstParty: server.url("/page.html"))
        let echo = try #require(await proxy.run(request).echo)
        #expect(echo.values("cookie") == ["ip=1"])
        #expect(echo.values("authorization") == ["Bearer secret"])
        #expect(echo.values("origin").isEmpty, "a same-origin GET carries no Origin, as in browsers")
    }

    @Test func setCookieLinesReachTheJarWholeAndNeverThePage() async throws {
        let server = try await ProxyTestServer.start()
        let jar = RecordingCookieJar()
        let proxy = NativeProxy(policy: loopbackPolicy(), cookies: jar)
        let outcome = await proxy.run(
            ProxiedRequest(url: server.url("/cookies"), firstParty: server.url("/"), credentials: .include))
        #expect(outcome.bodyText == "cookies")
        #expect(
            jar.stored.map(\.values) == [["a=1; Path=/", "b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/"]])
        let head = try #require(outcome.head)
        #expect(!head.headers.contains { $0.name.lowercased() == "set-cookie" })
        #expect(head.headers.contains { $0.name.lowercased() == "content-type" && $0.value == "text/plain" })
    }

    @Test func omitSendsNoCookiesAndStoresNone() async throws {
        let server = try await ProxyTestServer.start()
        let jar = RecordingCookieJar(preset: ["127.0.0.1": ["ip=1"]])
        let proxy = NativeProxy(policy: loopbackPolicy(), cookies: jar)
        let outcome = await proxy.run(
            ProxiedRequest(url: server.url("/cookies"), firstParty: server.url("/"), credentials: .omit))
        #expect(outcome.finished)
        #expect(server.requests.first?.values("cookie") == [])
        #expect(jar.stored.isEmpty)
        #expect(jar.asked.isEmpty)
    }
}
