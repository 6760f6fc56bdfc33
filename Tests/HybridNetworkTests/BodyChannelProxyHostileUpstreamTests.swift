import Foundation
import HybridKit
import HybridTestSupport
import Testing

@testable import HybridNetwork

/// A hostile server behind the body channel's proxy route, byte for byte (a raw server on 127.0.0.1, the real
/// channel and native proxy): what it answers reaches the page's hooks only as a head they can rebuild a `Response`
/// from, and never speaks for native code.
@Suite(.serialized) @EngineActor struct BodyChannelProxyHostileUpstreamTests {
    typealias Page = BodyChannelProxyTests.Page
    typealias Head = BodyChannelProxyTests.Head

    /// The head and raw (still chunked) body of the channel's answer to one proxy request to `server`.
    func ask(_ server: RawHTTPServer, page: Page, channel: LoopbackBodyChannel) async throws -> RawSocket.Response? {
        let descriptor: [String: Any] = [
            "url": "http://127.0.0.1:\(server.port)/submit", "method": "POST", "headers": [],
            "firstParty": "\(page.origin)/index.html",
        ]
        let exchange = try await RawSocket.exchange(
            port: channel.port,
            chunks: [Data(page.head(port: channel.port, descriptor: descriptor, length: 4).utf8), Data("body".utf8)],
            readFor: .seconds(10))
        return exchange.response
    }

    /// A status the page's `Response` constructor refuses (it throws a RangeError outside 200–599) comes back as
    /// the proxy's readable refusal, naming the status: the page's fetch rejects with a TypeError that says why,
    /// and the hooks do not send the request again.
    @Test func aStatusThePageCannotCarryIsAReadableRefusal() async throws {
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let page = Page(on: channel)
        for status in [999, 600, 199] {
            let server = try RawHTTPServer(
                response: Data("HTTP/1.1 \(status) Odd\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello".utf8))
            defer { server.stop() }
            let response = try #require(try await ask(server, page: page, channel: channel), "\(status)")
            #expect(response.status == 502 && response.header("Access-Control-Allow-Origin") == page.origin)
            let head = try #require(Head(response), "\(status)")
            #expect(head.status == 502 && head.value("X-Hybrid-Proxy-Error") == "1", "\(status): \(head.status)")
            let message = String(
                decoding: BodyChannelProxyTests.dechunked(response.body) + response.body, as: UTF8.self)
            // A 1xx is informational to the HTTP client, which then fails the exchange itself: readable all the same.
            if status >= 200 { #expect(message.contains("status \(status)"), "\(status): \(message)") }
            #expect(server.requests == 1, "\(status): the request went upstream once")
        }
        #expect(page.handler.store.count == 0)
    }

    /// A server that names native code's headers (the final URL, `redirected`, the body's resends, a proxy
    /// refusal), in any case, or sends a reason phrase the page's `Response` would throw on: its headers are
    /// dropped with a warning, native code's are the only ones the page's hooks read, and the phrase keeps only
    /// what a `statusText` can hold.
    @Test func aServerCannotSpeakForNativeCode() async throws {
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let page = Page(on: channel)
        let forged = [
            "HTTP/1.1 200 OK \u{2603} Gr\u{F6}\u{DF}e", "X-Hybrid-Final-URL: https%3A%2F%2Fbank.example%2F",
            "x-hybrid-redirected: 1", "X-HYBRID-BODY-RESENDS: 3", "X-Hybrid-Proxy-Error: 1", "Set-Cookie2: a=b",
            "X-Kept: yes", "Content-Type: text/plain", "Content-Length: 2", "Connection: close",
        ]
        let server = try RawHTTPServer(response: Data((forged.joined(separator: "\r\n") + "\r\n\r\nhi").utf8))
        defer { server.stop() }
        let response = try #require(try await ask(server, page: page, channel: channel))
        let head = try #require(Head(response))
        #expect(head.status == 200)
        #expect(head.value("X-Kept") == "yes")
        let ours = head.headers.compactMap { $0.first }.filter { $0.lowercased().hasPrefix("x-hybrid-") }
        // Native code's own: the URL the page asked for, nothing else.
        #expect(ours == ["X-Hybrid-Final-URL"], "\(head.headers)")
        #expect(head.value("X-Hybrid-Final-URL")?.contains("bank.example") == false)
        #expect(head.value("Set-Cookie2") == nil)
        let encoded = try #require(response.header(BodyChannelProxy.headHeader)?.removingPercentEncoding)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(encoded.utf8)) as? [String: Any])
        let statusText = try #require(object["statusText"] as? String)
        #expect(statusText.unicodeScalars.allSatisfy { $0.value <= 0xFF && ($0.value >= 0x20 || $0 == "\t") })
        #expect(!statusText.contains("\u{2603}") && statusText.hasPrefix("OK"), "\(statusText.debugDescription)")
        // The server's length describes the bytes handed over: the answer carries it, unchunked.
        #expect(response.header("Content-Length") == "2")
        #expect(String(decoding: response.body, as: UTF8.self) == "hi")
    }
}

extension BodyChannelProxyHostileUpstreamTests {
    /// A URL with credentials in it (which a page's `new Request` refuses outright), in the descriptor or in a
    /// redirect's `Location`: no `Authorization` made from them ever reaches a server.
    @Test func credentialsInAURLNeverBecomeAnAuthorizationHeader() async throws {
        let server = try await ProxyTestServer.start()
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let page = Page(on: channel)
        let port = channel.port
        let inURL = "http://user:secret@127.0.0.1:\(server.port)/echo"
        let viaRedirect = server.url(
            "/redirect/307?to=\(inURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        for url in [inURL, viaRedirect.absoluteString] {
            let descriptor: [String: Any] = ["url": url, "method": "POST", "headers": []]
            let exchange = try await RawSocket.exchange(
                port: port,
                chunks: [Data(page.head(port: port, descriptor: descriptor, length: 4).utf8), Data("body".utf8)],
                readFor: .seconds(10))
            #expect(exchange.response != nil, "\(url)")
        }
        // Both went out (the proxy takes such URLs as the engine would), so the check below saw real requests.
        #expect(server.requests.filter { $0.path == "/echo" }.count == 2, "\(server.requests.map(\.path))")
        for request in server.requests {
            #expect(request.values("authorization").isEmpty, "\(request.path): \(request.values("authorization"))")
        }
    }
}

/// A hostile local process (or a page's hooks gone wrong) on the proxy route: lengths the HTTP parser must refuse,
/// a head over its limit, descriptors whose method, URL or headers would smuggle a second request upstream.
@Suite(.serialized) @EngineActor struct BodyChannelProxyHostileClientTests {
    typealias Page = BodyChannelProxyTests.Page

    /// A second head pipelined behind a proxy request whose answer is streaming (the engine never pipelines; a
    /// client holding the key might): nothing more is written into the answer (NIO's server pipeline traps on a
    /// second response head there, which would end the app), the connection closes, and the proxy's request upstream
    /// is cancelled.
    @Test func aHeadPipelinedBehindAStreamingAnswerClosesTheConnection() async throws {
        let server = try await ProxyTestServer.start()
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let page = Page(on: channel)
        let port = channel.port
        let slow: [String: Any] = ["url": server.url("/slow").absoluteString, "method": "POST", "headers": []]
        let first = page.head(port: port, descriptor: slow, length: 4, keepAlive: true) + "body"
        let second = page.head(port: port, descriptor: slow, length: 4, keepAlive: true) + "more"
        let exchange = try await RawSocket.exchange(
            port: port, chunks: [Data(first.utf8), Data(second.utf8)], pause: .milliseconds(1500), readFor: .seconds(12)
        )
        #expect(exchange.response?.status == 200, "the first answer's head went out")
        #expect(
            exchange.closedByServer && exchange.elapsed < .seconds(10), "the connection closed: \(exchange.elapsed)")
        let text = String(decoding: exchange.received, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "one response head only: \(text.prefix(400))")
        for _ in 0..<200 where !server.slowClientLeft.isOpen { try await Task.sleep(for: .milliseconds(50)) }
        #expect(server.slowClientLeft.isOpen, "the proxy's request upstream was cancelled")
        // The channel still serves the next page request.
        let echo: [String: Any] = ["url": server.url("/echo").absoluteString, "method": "POST", "headers": []]
        let next = try await RawSocket.exchange(
            port: port, chunks: [Data((page.head(port: port, descriptor: echo, length: 4) + "next").utf8)],
            readFor: .seconds(10))
        #expect(next.response?.status == 200)
    }

    /// Lengths that are not one plain number never open a proxy request: closed unread, nothing upstream.
    @Test func lengthsThatAreNotOneNumberOpenNothing() async throws {
        let server = try await ProxyTestServer.start()
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let page = Page(on: channel)
        let port = channel.port
        let good: [String: Any] = ["url": server.url("/echo").absoluteString, "method": "POST", "headers": []]
        for length in ["+4", "-4", "4, 4", "0x4", "4 4", "99999999999999999999999", "4\u{0B}"] {
            let head = page.head(port: port, descriptor: good, length: nil, extra: ["Content-Length: \(length)"])
            let exchange = try await RawSocket.exchange(
                port: port, chunks: [Data(head.utf8), Data("body".utf8)], readFor: .seconds(5))
            #expect(exchange.closedByServer, "\(length.debugDescription)")
            #expect(
                exchange.response.map { $0.status >= 400 } ?? true,
                "\(length.debugDescription): \(exchange.response?.status ?? 0)")
        }
        // A head over the parser's limit (80 KiB): refused whole.
        let huge = page.head(
            port: port, descriptor: good, length: 4, extra: ["X-Pad: " + String(repeating: "a", count: 100 << 10)])
        let refused = try await RawSocket.exchange(
            port: port, chunks: [Data(huge.utf8), Data("body".utf8)], readFor: .seconds(5))
        #expect(refused.closedByServer && refused.response.map { $0.status >= 400 } ?? true)
        #expect(server.requests.isEmpty, "\(server.requests.map(\.path))")
        #expect(channel.routes.proxiesOpened == 0)
        #expect(page.handler.store.count == 0)
    }

    /// A descriptor is JSON, so it can hold what a header line cannot: a method, URL or header carrying CR LF, a
    /// header name that is no token, a scheme the proxy does not speak. None of it smuggles a byte upstream: the
    /// proxy refuses the request readably, or drops the header.
    @Test func aDescriptorCannotSmuggleARequestUpstream() async throws {
        let server = try await ProxyTestServer.start()
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        let page = Page(on: channel)
        let port = channel.port
        let echo = server.url("/echo").absoluteString
        let refusedOutright: [(String, [String: Any])] = [
            (
                "a method with CR LF",
                ["url": echo, "method": "POST /x HTTP/1.1\r\nX-Smuggled: 1\r\n\r\nGET", "headers": []]
            ),
            ("a method with a space", ["url": echo, "method": "GET /admin", "headers": []]),
            ("a data URL", ["url": "data:text/plain,hi", "method": "POST", "headers": []]),
            ("an ftp URL", ["url": "ftp://127.0.0.1:\(server.port)/x", "method": "POST", "headers": []]),
            ("another custom scheme", ["url": "other-app://app.example/x", "method": "POST", "headers": []]),
        ]
        for (what, descriptor) in refusedOutright {
            let exchange = try await RawSocket.exchange(
                port: port,
                chunks: [Data(page.head(port: port, descriptor: descriptor, length: 4).utf8), Data("body".utf8)],
                readFor: .seconds(5))
            let status = exchange.response?.status ?? 0
            #expect(status == 400 || status == 502, "\(what): \(status)")
        }
        #expect(server.requests.isEmpty, "\(server.requests.map { "\($0.method) \($0.path)" })")
        let headers: [[String]] = [
            ["X-Bad Name", "1"], ["", "empty"], ["X-\u{100}", "latin"], ["X-Nul", "a\u{0}b"],
            ["X-Lf", "a\nX-Smuggled: 1"],
            ["X-Ok", "kept"],
        ]
        let exchange = try await RawSocket.exchange(
            port: port,
            chunks: [
                Data(
                    page.head(port: port, descriptor: ["url": echo, "method": "POST", "headers": headers], length: 4)
                        .utf8),
                Data("body".utf8),
            ],
            readFor: .seconds(10))
        #expect(exchange.response != nil)
        let seen = try #require(server.requests.first)
        #expect(server.requests.count == 1 && seen.path == "/echo")
        #expect(seen.values("x-ok") == ["kept"])
        #expect(seen.values("x-smuggled").isEmpty && seen.values("x-nul").isEmpty && seen.values("x-lf").isEmpty)
        #expect(!seen.headers.contains { $0.name.contains(" ") || $0.name.isEmpty || $0.value.contains("\u{0}") })
        #expect(page.handler.store.count == 0)
    }
}
