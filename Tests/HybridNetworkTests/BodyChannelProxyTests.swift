import Foundation
import HybridKit
import HybridKitTesting
import HybridTestSupport
import Testing

@testable import HybridNetwork

/// Full-proxy requests over the body channel in one exchange, byte for byte as any local process or page could send
/// them: the head carries the key, the page's origin and the descriptor, the body follows, and the proxied answer
/// comes back on the same connection. What the page may set in the descriptor is what the scheme's proxy path lets
/// it set (the native proxy's rules apply to both), and every refusal before the proxy starts reads no byte.
@Suite(.serialized) @EngineActor struct BodyChannelProxyTests {
    /// A view with the full proxy on (loopback allowed, as in the proxy's other tests), one page of its loaded.
    struct Page {
        let handler: InterceptingSchemeHandler
        let origin = "hybrid://app.example"
        let switches = InterceptionSwitches()

        @EngineActor init(on channel: LoopbackBodyChannel, policy: ProxyPolicy = loopbackPolicy()) {
            self.init(on: channel, proxy: NativeProxy(policy: policy))
        }

        @EngineActor init(on channel: LoopbackBodyChannel, proxy: any RequestProxying) {
            handler = InterceptingSchemeHandler(
                wrapping: BodyChannelFloodTests.NoScheme(), switches: switches, proxy: proxy,
                hop: EngineExecutorHop.immediate,
                config: InterceptionConfig(defaultStrategy: .fullProxy))
            channel.routes.register(handler)
            handler.start(
                PageLoad(
                    EngineRequest(url: URL(string: "\(origin)/index.html") ?? URL(fileURLWithPath: "/"), method: "GET"))
            )
        }

        func head(
            port: Int, descriptor: [String: Any], length: Int?, origin: String? = nil, key: String? = nil,
            extra: [String] = [], method: String = "POST", keepAlive: Bool = false
        ) -> String {
            var lines = ["\(method) \(BodyChannelRoutes.proxyPath) HTTP/1.1", "Host: 127.0.0.1:\(port)"]
            lines.append("Origin: \(origin ?? self.origin)")
            lines.append("\(BodyChannelRoutes.keyHeader): \(key ?? handler.bodyKey)")
            // The hooks name the page a request comes from; a test that does not, means this view's page.
            var descriptor = descriptor
            if descriptor["firstParty"] == nil { descriptor["firstParty"] = "\(self.origin)/index.html" }
            lines.append("\(BodyChannelRoutes.descriptorHeader): \(Self.encode(descriptor))")
            if let length { lines.append("Content-Length: \(length)") }
            lines.append(keepAlive ? "Connection: keep-alive" : "Connection: close")
            return (lines + extra).joined(separator: "\r\n") + "\r\n\r\n"
        }

        static func encode(_ descriptor: [String: Any]) -> String {
            let json = String(
                decoding: (try? JSONSerialization.data(withJSONObject: descriptor)) ?? Data(), as: UTF8.self)
            return json.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        }
    }

    /// The engine's request for one of the view's pages (what makes its origin one of the view's).
    final class PageLoad: SchemeTask {
        let request: EngineRequest
        init(_ request: EngineRequest) { self.request = request }
        func respond(_ response: SchemeResponse) {}
        func send(_ data: Data) {}
        func finish() {}
        func fail(_ error: SchemeTaskError) {}
    }

    /// The proxied head the answer carries in `X-Hybrid-Head`.
    struct Head {
        let status: Int
        let headers: [[String]]
        init?(_ response: RawSocket.Response?) {
            guard let encoded = response?.header(BodyChannelProxy.headHeader)?.removingPercentEncoding,
                let object = try? JSONSerialization.jsonObject(with: Data(encoded.utf8)) as? [String: Any],
                let status = object["status"] as? Int, let headers = object["headers"] as? [[String]]
            else { return nil }
            self.status = status
            self.headers = headers
        }
        func value(_ name: String) -> String? { headers.first { $0.first?.lowercased() == name.lowercased() }?.last }
    }

    /// The body of a chunked answer, de-chunked.
    nonisolated static func dechunked(_ body: Data) -> Data {
        var out = Data()
        var rest = body[...]
        while let line = rest.range(of: Data("\r\n".utf8)),
            let size = Int(String(decoding: rest[rest.startIndex..<line.lowerBound], as: UTF8.self), radix: 16),
            size > 0
        {
            let start = line.upperBound
            out.append(rest[start..<start + size])
            rest = rest[(start + size + 2)...]
        }
        return out
    }

    @Test func aRequestAndItsBodyGoInOneExchangeUnderTheProxysRules() async throws {
        let server = try await ProxyTestServer.start()
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let page = Page(on: channel)
        let body = BodyChannelFloodTests.bytes(300 * 1024, seed: 3)
        let descriptor: [String: Any] = [
            "url": server.url("/echo").absoluteString, "method": "post", "firstParty": "\(page.origin)/index.html",
            "headers": [
                ["Content-Type", "application/octet-stream"], ["Cookie", "forged=1"], ["Host", "evil.example"],
                ["Origin", "https://evil.example"], ["Sec-Fetch-Site", "same-origin"], ["X-Custom", "kept"],
                ["X-Bad", "a\r\nInjected: 1"], ["Content-Length", "1"],
            ],
        ]
        let exchange = try await RawSocket.exchange(
            port: channel.port,
            chunks: [Data(page.head(port: channel.port, descriptor: descriptor, length: body.count).utf8), body],
            readFor: .seconds(10))
        let response = try #require(exchange.response, "\(String(decoding: exchange.received, as: UTF8.self))")
        #expect(response.status == 200)
        #expect(response.header("Access-Control-Allow-Origin") == page.origin)
        let head = try #require(Head(response))
        #expect(head.status == 200)
        #expect(head.value("X-Hybrid-Final-URL") != nil)
        // The echo's length goes on the wire: the engine has the answer with its last byte.
        #expect(response.header("Content-Length") == "\(response.body.count)")
        #expect(response.header("Transfer-Encoding") == nil)
        let echo = try #require(
            try? JSONDecoder().decode(Echo.self, from: response.body),
            "\(String(decoding: response.body.prefix(300), as: UTF8.self))")
        #expect(echo.method == "POST")
        #expect(echo.bodyData == body)
        // The Fetch rules the proxy applies to every page request: the page set none of these.
        #expect(echo.values("host") == ["127.0.0.1:\(server.port)"])
        #expect(echo.values("content-length") == ["\(body.count)"])
        #expect(echo.values("cookie").isEmpty && echo.values("sec-fetch-site").isEmpty && echo.values("x-bad").isEmpty)
        #expect(echo.values("origin") == [page.origin.replacingOccurrences(of: "hybrid:", with: "https:")])
        #expect(echo.values("x-custom") == ["kept"])
        #expect(channel.routes.proxiesOpened == 1)
        #expect(page.handler.store.count == 0)
    }

    /// The wire answer announces the upstream body's length when the upstream did (the engine then completes it
    /// with its last byte, not at a chunked terminator that waits for the client to see the upstream end), and is
    /// chunked when it did not; the page's bytes are the same either way.
    @Test func theAnswerCarriesTheUpstreamLengthOrGoesChunked() async throws {
        let server = try await ProxyTestServer.start()
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let page = Page(on: channel)
        let cases: [(path: String, length: String?)] = [("/bytes/70000", "70000"), ("/chunked/70000", nil)]
        for (path, length) in cases {
            let descriptor: [String: Any] = ["url": server.url(path).absoluteString, "method": "POST", "headers": []]
            let exchange = try await RawSocket.exchange(
                port: channel.port,
                chunks: [
                    Data(page.head(port: channel.port, descriptor: descriptor, length: 4).utf8), Data("body".utf8),
                ],
                readFor: .seconds(10))
            let response = try #require(exchange.response, "\(path)")
            #expect(response.status == 200, "\(path)")
            #expect(response.header("Content-Length") == length, "\(path)")
            #expect((response.header("Transfer-Encoding") == "chunked") == (length == nil), "\(path)")
            let body = length == nil ? Self.dechunked(response.body) : response.body
            #expect(body.count == 70000, "\(path): \(body.count)")
        }
        #expect(page.handler.store.count == 0)
    }

    /// A proxy whose body disagrees with the length its head announced (an app's own `RequestProxying`, or a server
    /// the client did not hold to it) must not leave a kept-alive connection out of step: more bytes than announced,
    /// or an end short of them, close the connection at once, and the engine sees a cut answer.
    @Test func anAnswerThatBreaksItsAnnouncedLengthClosesTheConnection() async throws {
        for (what, sent) in [("longer", 10), ("shorter", 2)] {
            let channel = try LoopbackBodyChannel.start()
            defer { channel.stop() }
            let lying = LyingProxy(announced: 4, sent: sent)
            let page = Page(on: channel, proxy: lying)
            let descriptor: [String: Any] = ["url": "https://app.example/api", "method": "POST", "headers": []]
            let exchange = try await RawSocket.exchange(
                port: channel.port,
                chunks: [
                    Data(page.head(port: channel.port, descriptor: descriptor, length: 4, keepAlive: true).utf8),
                    Data("body".utf8),
                ],
                readFor: .seconds(5))
            #expect(exchange.closedByServer && exchange.elapsed < .seconds(5), "\(what): \(exchange.elapsed)")
            let response = try #require(exchange.response, "\(what)")
            #expect(response.header("Content-Length") == "4", "\(what)")
            #expect(response.body.count < 4, "\(what): \(response.body.count) bytes on a 4-byte answer")
            #expect(page.handler.store.count == 0, "\(what)")
        }
    }

    /// A proxy that answers at once with a head announcing `announced` bytes and a body of `sent` bytes.
    final class LyingProxy: RequestProxying, ProxyCancelling {
        let announced: Int
        let sent: Int

        init(announced: Int, sent: Int) {
            self.announced = announced
            self.sent = sent
        }

        func perform(_ request: ProxiedRequest, events: @escaping @Sendable (ProxyEvent) -> Void)
            -> any ProxyCancelling
        {
            let head = ProxiedResponseHead(
                statusCode: 200, reasonPhrase: "OK", headers: [(name: "Content-Length", value: "\(announced)")],
                url: request.url, redirected: false)
            let sent = sent
            // After the head is accepted, as a real proxy answers: from another thread.
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                events(.response(head))
                events(.data(Data(repeating: 0x61, count: sent)))
                events(.finished)
            }
            return self
        }

        func cancel() {}
    }

    /// Every head the routes refuse is answered at once, without CORS, and the connection closes unread: nothing
    /// reaches the server and nothing stays in the store.
    @Test func hostileProxyHeadsAreRefusedBeforeAByteAndSendNothing() async throws {
        let server = try await ProxyTestServer.start()
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let page = Page(on: channel)
        let other = Page(on: channel)
        let port = channel.port
        let good: [String: Any] = ["url": server.url("/echo").absoluteString, "method": "POST", "headers": []]
        let cases: [(String, String, Int)] = [
            ("no key", page.head(port: port, descriptor: good, length: 4, key: ""), 403),
            (
                "a wrong key",
                page.head(port: port, descriptor: good, length: 4, key: String(repeating: "0", count: 32)), 403
            ),
            ("another origin", page.head(port: port, descriptor: good, length: 4, origin: "https://evil.example"), 403),
            ("an opaque origin", page.head(port: port, descriptor: good, length: 4, origin: "null"), 403),
            (
                "a chunked body",
                page.head(port: port, descriptor: good, length: nil, extra: ["Transfer-Encoding: chunked"]), 411
            ),
            ("a GET", page.head(port: port, descriptor: good, length: 4, method: "GET"), 404),
            (
                "two descriptors",
                page.head(port: port, descriptor: good, length: 4, extra: ["\(BodyChannelRoutes.descriptorHeader): x"]),
                400
            ),
            ("a descriptor that is not JSON", page.head(port: port, descriptor: [:], length: 4), 400),
            (
                "a descriptor naming a stored body",
                page.head(port: port, descriptor: good.merging(["bodyID": BodyStore.randomID()]) { $1 }, length: 4),
                400
            ),
            (
                "a relative URL",
                page.head(port: port, descriptor: ["url": "/echo", "method": "POST", "headers": []], length: 4), 400
            ),
            ("a body over the store's limit", page.head(port: port, descriptor: good, length: 65 << 20), 413),
            (
                "a rebinding host",
                page.head(port: port, descriptor: good, length: 4).replacingOccurrences(
                    of: "Host: 127.0.0.1:\(port)", with: "Host: evil.example:\(port)"), 421
            ),
        ]
        for (what, head, status) in cases {
            let exchange = try await RawSocket.send(head, port: port, readFor: .seconds(5))
            #expect(
                exchange.response?.status == status, "\(what): \(String(decoding: exchange.received, as: UTF8.self))")
            #expect(exchange.closedByServer, "\(what): the connection stays open")
            #expect(exchange.response?.header("Access-Control-Allow-Origin") == nil, "\(what)")
        }
        // Another view's key for this page's origin: that view never served it.
        let foreign = try await RawSocket.send(
            page.head(port: port, descriptor: good, length: 4, key: other.handler.bodyKey).replacingOccurrences(
                of: page.origin, with: "hybrid://elsewhere.example"), port: port, readFor: .seconds(5))
        #expect(foreign.response?.status == 403)
        // The proxy switched off for the view: refused before a byte, as the scheme's proxy path refuses it.
        page.switches.update { $0.proxyEnabled = false }
        // The other view loaded the same origin: switched off too, so no view of the channel takes it.
        other.switches.update { $0.proxyEnabled = false }
        let off = try await RawSocket.send(page.head(port: port, descriptor: good, length: 4), port: port)
        #expect(off.response?.status == 403 && off.closedByServer)
        // A preflight for the proxy route: only for the view's own pages, only with the proxy on.
        let preflight = "OPTIONS /proxy HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        let whileOff = try await RawSocket.send(preflight + "Origin: \(page.origin)\r\n\r\n", port: port)
        #expect(whileOff.response?.header("Access-Control-Allow-Origin") == nil)
        page.switches.update { $0.proxyEnabled = true }
        other.switches.update { $0.proxyEnabled = true }
        let allowed = try await RawSocket.send(preflight + "Origin: \(page.origin)\r\n\r\n", port: port)
        #expect(allowed.response?.status == 204)
        #expect(allowed.response?.header("Access-Control-Allow-Origin") == page.origin)
        let evil = try await RawSocket.send(preflight + "Origin: https://evil.example\r\n\r\n", port: port)
        #expect(evil.response?.header("Access-Control-Allow-Origin") == nil)

        #expect(server.requests.isEmpty, "\(server.requests.count) requests reached the server")
        #expect(channel.routes.proxiesOpened == 0)
        #expect(page.handler.store.count == 0)
    }

    /// What the proxy refuses once the head passed (its policy's hosts and addresses, a forbidden method) comes
    /// back readable, with CORS, and nothing is sent upstream: the page's fetch rejects with the proxy's message,
    /// as on the scheme's proxy path.
    @Test func thePolicyAndTheMethodRulesHoldOverTheChannel() async throws {
        let server = try await ProxyTestServer.start()
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        // Loopback by name only: 127.0.0.1 as a literal address is a special address the policy refuses.
        let page = Page(on: channel, policy: ProxyPolicy(allowedHosts: ["localhost"]))
        let port = channel.port
        let cases: [(String, [String: Any], String)] = [
            ("a host not allowed", ["url": "http://evil.example/", "method": "POST", "headers": []], "evil.example"),
            (
                "a loopback address", ["url": server.url("/echo").absoluteString, "method": "POST", "headers": []],
                "127.0.0.1"
            ),
            (
                "CONNECT", ["url": "http://localhost:\(server.port)/echo", "method": "CONNECT", "headers": []],
                "CONNECT"
            ),
            ("TRACE", ["url": "http://localhost:\(server.port)/echo", "method": "trace", "headers": []], "trace"),
            ("a file URL", ["url": "file:///etc/passwd", "method": "POST", "headers": []], "file"),
        ]
        for (what, descriptor, mention) in cases {
            let exchange = try await RawSocket.exchange(
                port: port,
                chunks: [Data(page.head(port: port, descriptor: descriptor, length: 4).utf8), Data("body".utf8)],
                readFor: .seconds(5))
            let response = try #require(exchange.response, "\(what)")
            #expect(response.header("Access-Control-Allow-Origin") == page.origin, "\(what)")
            let head = try #require(Head(response), "\(what)")
            #expect(head.status == 502 && head.value("X-Hybrid-Proxy-Error") == "1", "\(what): \(head.status)")
            let message = String(decoding: Self.dechunked(response.body) + response.body, as: UTF8.self)
            #expect(message.contains(mention), "\(what): \(message)")
        }
        #expect(server.requests.isEmpty, "\(server.requests.map(\.method))")
        #expect(page.handler.store.count == 0)
    }

    /// A body that stalls is cut at the idle timeout: the proxy stops, the page gets a readable 408 (it must not
    /// send the request again: upstream may have begun), the body leaves the store. A page that goes away mid-body
    /// cancels the request the same way.
    @Test func aStalledOrAbandonedBodyStopsTheProxyAndLeavesNothing() async throws {
        let server = try await ProxyTestServer.start()
        let channel = try LoopbackBodyChannel.start(limits: .init(idleTimeout: .seconds(1), uploadTimeout: .seconds(3)))
        defer { channel.stop() }
        let page = Page(on: channel)
        let port = channel.port
        let descriptor: [String: Any] = ["url": server.url("/echo").absoluteString, "method": "POST", "headers": []]
        let stalled = try await RawSocket.exchange(
            port: port,
            chunks: [
                Data(page.head(port: port, descriptor: descriptor, length: 1000).utf8), Data(count: 10),
                Data(count: 10),
            ],
            pause: .seconds(3), readFor: .seconds(5))
        #expect(stalled.closedByServer && stalled.elapsed < .seconds(3), "\(stalled.elapsed)")
        let head = try #require(Head(stalled.response), "\(String(decoding: stalled.received, as: UTF8.self))")
        #expect(head.status == 408 && head.value("X-Hybrid-Proxy-Error") == "1")
        #expect(page.handler.store.count == 0)

        // Half a body, then the connection closes: nothing stays.
        let cut = try await RawSocket.exchange(
            port: port,
            chunks: [Data(page.head(port: port, descriptor: descriptor, length: 1000).utf8), Data(count: 500)],
            readFor: .milliseconds(300))
        #expect(cut.response == nil)
        for _ in 0..<20 where page.handler.store.count > 0 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(page.handler.store.count == 0)
        // Neither reached the server whole.
        #expect(server.requests.allSatisfy { $0.body.count < 1000 })
        #expect(channel.routes.proxiesOpened == 2)
    }
}
