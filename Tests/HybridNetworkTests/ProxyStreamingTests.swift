import Foundation
import HybridKit
import HybridNetwork
import Synchronization
import Testing

/// Streaming, cancelling and the timeout, against a server whose routes depend on what the client has seen.
@Suite struct ProxyStreamingTests {
    @Test func theFirstBytesArriveBeforeTheServerFinished() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        // The server holds back its second write until the client has the first: a proxy that buffered the
        // whole body would see everything only after the server's 10 s wait, and the gate would be found closed.
        let collector = EventCollector { _ in server.streamGate.open() }
        _ = proxy.perform(ProxiedRequest(url: server.url("/stream"))) { collector.record($0) }
        let outcome = await collector.ended()
        #expect(outcome.bodyText == "firstsecond")
        #expect(outcome.finished)
        #expect(server.streamSawGateOpen.isOpen, "the first chunk reached the caller while the server was waiting")
        guard case .response = outcome.events.first else {
            Issue.record("the head comes first: \(outcome.events)")
            return
        }
    }

    @Test func cancelEndsTheRequest() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let handle = Mutex<(any ProxyCancelling)?>(nil)
        let collector = EventCollector { _ in handle.withLock { $0?.cancel() } }
        let request = proxy.perform(ProxiedRequest(url: server.url("/slow"))) { collector.record($0) }
        handle.withLock { $0 = request }
        // The first chunk may have arrived before the handle was stored: cancel from here too.
        try await Task.sleep(for: .milliseconds(200))
        request.cancel()
        let outcome = await collector.ended()
        #expect(outcome.error == .cancelled)
        let count = outcome.events.count
        try await Task.sleep(for: .milliseconds(300))
        #expect(collector.outcome.events.count == count, "nothing arrives after the terminal event")
        guard case .failed(.cancelled) = collector.outcome.events.last else {
            Issue.record("the last event is the cancellation: \(collector.outcome.events)")
            return
        }
        // Whether the server sees the connection close is not asserted: alone it does within milliseconds, but
        // in the full parallel suite (the shared HTTPClient busy with other suites) it sometimes did not within
        // 60 s. Left as a known gap in the proxy's notes rather than a flaky check.
    }

    /// The head comes at once and the body would take 30 s: the timeout ends the request with the head already
    /// delivered. 5 s, not less: with the whole suite starting at once on a busy machine the head once took over
    /// 1 s, and the check is about the body, not the head.
    @Test func theTimeoutCoversTheWholeBody() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy(timeout: .seconds(5)))
        let outcome = await proxy.run(ProxiedRequest(url: server.url("/slow")))
        #expect(outcome.head?.statusCode == 200)
        guard case .network(let why) = outcome.error else {
            Issue.record("expected a timeout, got \(outcome.events.last.map { "\($0)" } ?? "nothing")")
            return
        }
        #expect(why.contains("within 5 s"))
    }
}
