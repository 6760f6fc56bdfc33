import Foundation
import HybridTestSupport
import HybridUpdateServer
import Testing

/// RFC 9112 message rules checked on raw sockets: `Host`, and clients too slow to finish their headers.
@Suite("Update server: connections")
struct ConnectionTests {
    static let path = "/v1/packages/com.example.shop/latest"

    /// RFC 9112 §3.2: an HTTP/1.1 request without `Host`, or any request with two `Host` lines, is a 400.
    @Test(arguments: [
        ("GET \(path) HTTP/1.1\r\nConnection: close\r\n\r\n", 400),
        ("GET \(path) HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n", 400),
        ("GET \(path) HTTP/1.1\r\nHost: a\r\nhost: a\r\nConnection: close\r\n\r\n", 400),
        ("HEAD \(path) HTTP/1.1\r\nConnection: close\r\n\r\n", 400),
        ("GET \(path) HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        // HTTP/1.0 did not require Host.
        ("GET \(path) HTTP/1.0\r\n\r\n", 200),
        ("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 200),
        ("GET /nothing HTTP/1.1\r\nConnection: close\r\n\r\n", 400),
    ])
    func hostHeaderIsRequired(request: String, status: Int) async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let exchange = try await RawSocket.send(request, port: server.port)
        #expect(exchange.response?.status == status)
        // A rejected request closes the connection: what follows it on the wire cannot be trusted.
        #expect(exchange.closedByServer)
    }

    /// The 400 ends the connection even when the client asked to keep it and sent more requests behind it.
    @Test func badHostClosesTheConnection() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let good = "GET \(Self.path) HTTP/1.1\r\nHost: h\r\n\r\n"
        let bad = "GET \(Self.path) HTTP/1.1\r\n\r\n"
        let exchange = try await RawSocket.send(good + bad + good, port: server.port, readFor: .seconds(5))
        #expect(exchange.closedByServer)
        let text = String(decoding: exchange.received, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 200").count == 2, "one 200 only: \(text.prefix(300))")
        #expect(text.contains("HTTP/1.1 400"))
    }

    /// A connection that never sends a request is closed after the header timeout.
    @Test func silentConnectionIsClosed() async throws {
        let fixture = try ServerFixture()
        let server = try await fixture.startServer(headerTimeout: .seconds(1))
        defer { server.stop() }
        // Generous bounds: the whole suite runs beside this test on two cores, and the engine tests' processes
        // can delay the server's loop by seconds; without the timeout the connection would stay open all 30 s.
        let exchange = try await RawSocket.exchange(port: server.port, chunks: [], readFor: .seconds(30))
        #expect(exchange.closedByServer)
        #expect(exchange.elapsed < .seconds(20))
    }

    /// Slowloris: headers sent a byte at a time, each byte well inside any idle timeout, are cut off once the
    /// whole head has taken longer than the header timeout.
    @Test func headersTrickledAByteAtATimeAreCutOff() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer(headerTimeout: .seconds(1))
        defer { server.stop() }
        let request =
            "GET \(Self.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: \(String(repeating: "s", count: 300))\r\n\r\n"
        let bytes = request.utf8.map { Data([$0]) }
        // 300+ bytes at 100 ms each would take over 30 s to complete; the server cuts it off after 1 s (bounds
        // generous for a loaded machine, as above).
        let exchange = try await RawSocket.exchange(
            port: server.port, chunks: bytes, pause: .milliseconds(100), readFor: .seconds(2))
        #expect(exchange.closedByServer)
        #expect(exchange.chunksSent < bytes.count)
        #expect(exchange.elapsed < .seconds(20))
        #expect(exchange.response == nil)
    }

    /// The timeout is for reading a head, not for the whole connection: a keep-alive connection serves several
    /// requests, each head arriving inside the timeout, over longer than the timeout in all.
    @Test func requestsInsideTheTimeoutAreServed() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer(headerTimeout: .seconds(2))
        defer { server.stop() }
        let request = Data("GET \(Self.path) HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        let exchange = try await RawSocket.exchange(
            port: server.port, chunks: [request, request, request], pause: .milliseconds(700),
            // Until the server closes the idle connection (2 s after the last answer): a loaded machine may
            // answer the last request late, and no fixed read window would be long enough.
            readFor: .seconds(30))
        #expect(exchange.chunksSent == 3)
        #expect(exchange.closedByServer, "an idle keep-alive connection is closed after the timeout")
        let text = String(decoding: exchange.received, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 200").count == 4)
    }
}
