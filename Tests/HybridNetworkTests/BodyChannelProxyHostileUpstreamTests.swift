import Foundation
import HybridKit
import HybridTestSupport
import Testing

@testable import HybridNetwork

/// A hostile server behind the body channel's proxy route, byte for byte (a raw server on 127.0.0.1, the real
/// channel and native proxy): what it answers reaches the page's hooks only as a head they can rebuild a `Response`
/// from, and never speaks for native code.
@Suite(.serialized) struct BodyChannelProxyHostileUpstreamTests {
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
        let logs = LogCapture.installed()
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
            let message = String(decoding: BodyChannelProxyTests.dechunked(response.body) + response.body, as: UTF8.self)
            // A 1xx is informational to the HTTP client, which then fails the exchange itself: readable all the same.
            if status >= 200 { #expect(message.contains("status \(status)"), "\(status): \(message)") }
            #expect(server.requests == 1, "\(status): the request went upstream once")
        }
        #expect(logs.messages("hybrid.bodies").contains { $0.contains("which a page's Response cannot carry") })
        #expect(page.handler.store.count == 0)
    }

    /// A server that names native code's headers (the final URL, `redirected`, the body's resends, a proxy
    /// refusal), in any case, or sends a reason phrase the page's `Response` would throw on: its headers are
    /// dropped with a warning, native code's are the only ones the page's hooks read, and the phrase keeps only
    /// what a `statusText` can hold.
    @Test func aServerCannotSpeakForNativeCode() async throws {
        let logs = LogCapture.installed()
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
        #expect(String(decoding: BodyChannelProxyTests.dechunked(response.body), as: UTF8.self) == "hi")
        #expect(logs.messages("hybrid.bodies").contains { $0.contains("X-Hybrid-* headers were dropped") })
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
        let viaRedirect = server.url("/redirect/307?to=\(inURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
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
