import Foundation
import HybridKit
import HybridNetwork
import Testing

/// Forbidden headers and size limits, checked on what really reaches the server.
@Suite struct ProxyHeaderAndLimitTests {
    @Test func forbiddenAndMalformedHeadersNeverReachTheServer() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let headers: [(name: String, value: String)] = [
            ("Host", "evil.example"), ("Cookie", "stolen=1"), ("Content-Length", "99"), ("Origin", "https://evil"),
            ("Referer", "https://evil/"), ("Sec-Fetch-Site", "same-origin"), ("Proxy-Authorization", "Basic eA=="),
            ("Connection", "close"), ("Transfer-Encoding", "chunked"), ("Accept-Encoding", "br"), ("DNT", "1"),
            ("Keep-Alive", "5"), ("TE", "trailers"), ("Upgrade", "h2c"), ("Via", "x"), ("Date", "x"),
            ("Expect", "100-continue"), ("Access-Control-Request-Method", "PUT"), ("User-Agent", "Evil/1"),
            ("X-HTTP-Method-Override", "TRACE"), ("X-Bad", "a\r\nInjected: 1"), ("Bad Name", "x"),
            ("X-Custom", "kept"), ("Accept", "application/json"),
        ]
        let outcome = await proxy.run(
            ProxiedRequest(url: server.url("/echo"), method: "post", headers: headers, body: Data("hello".utf8)))
        let echo = try #require(outcome.echo, "\(outcome.events)")
        #expect(echo.method == "POST", "methods are normalised as Fetch does")
        #expect(echo.values("host") == ["127.0.0.1:\(server.port)"])
        #expect(echo.values("content-length") == ["5"])
        #expect(echo.values("user-agent") == ["HybridKitTest/1"])
        #expect(echo.values("x-custom") == ["kept"])
        #expect(echo.values("accept") == ["application/json"])
        for name in [
            "cookie", "origin", "referer", "sec-fetch-site", "proxy-authorization", "dnt",
            "keep-alive", "upgrade", "via", "date", "expect", "access-control-request-method",
            "x-http-method-override", "x-bad", "injected", "bad name",
        ] {
            #expect(echo.values(name).isEmpty, "\(name) must not be sent")
        }
        #expect(echo.values("transfer-encoding").isEmpty)
        #expect(echo.values("accept-encoding") == ["deflate, gzip"], "the encodings the proxy decodes, not the page's")
        #expect(echo.bodyData == Data("hello".utf8))
    }

    @Test func anOversizedRequestBodyIsRefusedBeforeSending() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy(maxRequestBodyBytes: 1000))
        let outcome = await proxy.run(
            ProxiedRequest(url: server.url("/echo"), method: "POST", body: Data(count: 1001)))
        #expect(outcome.error == .requestBodyTooLarge(limit: 1000))
        #expect(server.requests.isEmpty)
        let fits = await proxy.run(ProxiedRequest(url: server.url("/echo"), method: "POST", body: Data(count: 1000)))
        #expect(fits.echo?.bodyData.count == 1000)
    }

    @Test func aResponseDeclaredTooLargeFailsBeforeItsHead() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy(maxResponseBodyBytes: 100_000))
        let outcome = await proxy.run(ProxiedRequest(url: server.url("/bytes/200000")))
        #expect(outcome.error == .responseTooLarge(limit: 100_000))
        #expect(outcome.head == nil)
        let fits = await proxy.run(ProxiedRequest(url: server.url("/bytes/100000")))
        #expect(fits.body.count == 100_000)
        #expect(fits.finished)
    }

    @Test func aStreamedResponseIsCutAtTheLimit() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy(maxResponseBodyBytes: 100_000))
        let outcome = await proxy.run(ProxiedRequest(url: server.url("/chunked/1000000")))
        #expect(outcome.head?.statusCode == 200, "no length was declared, so the head arrives first")
        #expect(outcome.error == .responseTooLarge(limit: 100_000))
        #expect(outcome.body.count <= 100_000)
        #expect(!outcome.finished)
    }
}

/// Compressed answers: the proxy asks for gzip, decodes it, and the page sees plain bytes with headers to match.
@Suite struct ProxyDecodingTests {
    @Test func aGzipAnswerReachesThePageDecoded() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let outcome = await proxy.run(ProxiedRequest(url: server.url("/gzip/150000")))
        #expect(outcome.finished, "\(outcome.events.last.map { "\($0)" } ?? "")")
        #expect(outcome.body == Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 % 253) }))
        let head = try #require(outcome.head)
        #expect(!head.headers.contains { ["content-encoding", "content-length"].contains($0.name.lowercased()) })
        #expect(head.headers.contains { $0.name.lowercased() == "content-type" })
        #expect(server.requests.first?.values("accept-encoding").first?.contains("gzip") == true)
    }

    @Test func aDecodedAnswerIsStillCutAtTheLimit() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy(maxResponseBodyBytes: 100_000))
        let outcome = await proxy.run(ProxiedRequest(url: server.url("/gzip/150000")))
        #expect(outcome.error == .responseTooLarge(limit: 100_000))
        #expect(outcome.body.count <= 100_000)
    }
}
