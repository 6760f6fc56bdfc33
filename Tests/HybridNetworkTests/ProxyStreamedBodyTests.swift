import Foundation
import HybridKit
import HybridNetwork
import Synchronization
import Testing

/// A request body that is still arriving: the proxy streams it, sends it again after a 307/308, and fails the
/// request with a typed error when the body stops before its end.
@Suite struct ProxyStreamedBodyTests {
    /// Bytes released in steps by the test; reads wait for them, as reads of a body still uploading do.
    final class TrickleSource: RequestBodySource {
        let bytes: Data
        private let released = Mutex(0)
        private let broken = Mutex(false)
        let reads = Mutex(0)

        init(_ bytes: Data) { self.bytes = bytes }

        var count: Int { bytes.count }

        func release(upTo end: Int) { released.withLock { $0 = min(bytes.count, end) } }
        func breakOff() { broken.withLock { $0 = true } }

        func bytes(at offset: Int, maxBytes: Int) async throws -> Data {
            reads.withLock { $0 += 1 }
            while true {
                if broken.withLock({ $0 }) { throw TrickleError.abandoned }
                let available = released.withLock { $0 }
                if available > offset { return bytes.subdata(in: offset..<min(available, offset + maxBytes)) }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    enum TrickleError: Error { case abandoned }

    static let payload = Data((0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    @Test func aBodyStillArrivingIsStreamedByteForByte() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let source = TrickleSource(Self.payload)
        source.release(upTo: 100_000)
        var request = ProxiedRequest(url: server.url("/echo"), method: "POST")
        request.streamedBody = source
        let releasing = Task {
            for end in stride(from: 200_000, through: Self.payload.count, by: 100_000) {
                try await Task.sleep(for: .milliseconds(10))
                source.release(upTo: end)
            }
        }
        let outcome = await proxy.run(request)
        _ = await releasing.result
        let echo = try #require(outcome.echo, "\(outcome.events)")
        #expect(echo.bodyData == Self.payload)
        #expect(echo.values("content-length") == ["\(Self.payload.count)"], "the length is known up front")
        #expect(echo.values("transfer-encoding").isEmpty)
    }

    @Test(arguments: [307, 308]) func aRedirectSendsTheStreamedBodyAgain(_ status: Int) async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let source = TrickleSource(Self.payload)
        source.release(upTo: Self.payload.count)
        var request = ProxiedRequest(url: server.url("/redirect/\(status)?to=/echo"), method: "POST")
        request.streamedBody = source
        let outcome = await proxy.run(request)
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        let seen = server.requests
        try #require(seen.count == 2)
        #expect(seen[0].body == Self.payload)
        #expect(seen[1].body == Self.payload, "\(status) sends the same bytes again")
    }

    @Test func aBodyThatStopsFailsTheRequestWithATypedError() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let source = TrickleSource(Self.payload)
        source.release(upTo: 50_000)
        var request = ProxiedRequest(url: server.url("/echo"), method: "POST")
        request.streamedBody = source
        let breaking = Task {
            try await Task.sleep(for: .milliseconds(50))
            source.breakOff()
        }
        let outcome = await proxy.run(request)
        _ = await breaking.result
        guard case .requestBodyFailed = outcome.error else {
            Issue.record("expected requestBodyFailed, got \(outcome.events)")
            return
        }
        #expect(outcome.head == nil)
    }

    @Test func aStreamedBodyOverTheLimitIsRefusedBeforeSending() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy(maxRequestBodyBytes: 1000))
        var request = ProxiedRequest(url: server.url("/echo"), method: "POST")
        let source = TrickleSource(Data(count: 1001))
        request.streamedBody = source
        let outcome = await proxy.run(request)
        #expect(outcome.error == .requestBodyTooLarge(limit: 1000))
        #expect(server.requests.isEmpty)
        #expect(source.reads.withLock { $0 } == 0)
    }

    /// A server may answer before it read the body (an early refusal, a redirect): the page gets that answer, or
    /// the redirect's next hop, while the body is still arriving, not when its upload ends. Here the upload never
    /// ends, so a proxy that waited for it would hit the policy's timeout (2 s) and fail.
    @Test(arguments: [("/early/200", 200), ("/early/403", 403), ("/early/303?to=/echo", 200)])
    func anAnswerBeforeTheBodyEndedReachesThePageAtOnce(_ path: String, status: Int) async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy(timeout: .seconds(2)))
        let source = TrickleSource(Self.payload)
        source.release(upTo: 100_000)
        var request = ProxiedRequest(url: server.url(path), method: "POST")
        request.streamedBody = source
        let outcome = await proxy.run(request)
        source.breakOff()
        #expect(outcome.error == nil && outcome.finished, "\(outcome.events)")
        #expect(outcome.head?.statusCode == status, "\(outcome.events)")
        if path.contains("?to=") {
            #expect(outcome.echo?.method == "GET", "the 303's next hop: \(outcome.events)")
        } else {
            #expect(outcome.bodyText == "early")
        }
    }

    /// The same answers when the body's bytes come only after the server answered (it answers the head at once,
    /// with a body or with none): the hop ends with the answer, a 307 sends the whole body to the next hop and a 303
    /// none. A proxy on AsyncHTTPClient's delegate API hung on the answers with no body (BENCHMARKS.md, the
    /// event-loop attempt): their end came while the body's first write waited, and the hop waited for the body.
    @Test(arguments: [
        ("/early/303?to=/echo", 200, FirstAnswer.nextHop(method: "GET", body: false)),
        ("/early/303?to=/echo&empty", 200, .nextHop(method: "GET", body: false)),
        ("/early/403", 403, .text("early")),
        ("/early/403?empty", 403, .text("")),
        ("/early/307?to=/echo", 200, .nextHop(method: "POST", body: true)),
        ("/early/307?to=/echo&empty", 200, .nextHop(method: "POST", body: true)),
    ])
    func anAnswerBeforeTheBodysBytesCameEndsTheHop(_ path: String, status: Int, expected: FirstAnswer) async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy(timeout: .seconds(2)))
        let source = TrickleSource(Self.payload)
        var request = ProxiedRequest(url: server.url(path), method: "POST")
        request.streamedBody = source
        // The body's bytes come only once the server has answered (it answers the head at once).
        let release = Task {
            try await Task.sleep(for: .milliseconds(200))
            source.release(upTo: Self.payload.count)
        }
        let outcome = await proxy.run(request)
        release.cancel()
        #expect(outcome.error == nil && outcome.finished, "\(outcome.events)")
        #expect(outcome.head?.statusCode == status, "\(outcome.events)")
        switch expected {
        case .text(let text):
            #expect(outcome.bodyText == text)
        case .nextHop(let method, let body):
            #expect(outcome.echo?.method == method, "the next hop: \(outcome.events)")
            #expect(outcome.echo?.bodyData == (body ? Self.payload : Data()), "the next hop's body")
        }
    }

    /// What the page gets after a server answered first: that answer's text, or what the redirect's next hop saw
    /// (its method, and whether it got the whole body again).
    enum FirstAnswer: Sendable {
        case text(String)
        case nextHop(method: String, body: Bool)
    }
}
