import Dispatch
import Foundation
import HybridKit
@testable import HybridNetwork
import Synchronization
import Testing

/// The ordering guarantees of the event sink, with callbacks that block or cancel from inside.
@Suite struct ProxyEventSinkTests {
    final class Log: Sendable {
        let events = Mutex<[String]>([])
        func add(_ event: ProxyEvent) {
            let name =
                switch event {
                case .response: "response"
                case .data: "data"
                case .finished: "finished"
                case .failed(let error): "failed(\(error))"
                }
            events.withLock { $0.append(name) }
        }
        var all: [String] { events.withLock { $0 } }
    }

    @Test func aCancelWhileACallbackBlocksReturnsAtOnceAndIsDeliveredAfterIt() async throws {
        let log = Log()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let sink = ProxyEventSink(host: "test.example") { event in
            log.add(event)
            if case .data = event {
                entered.signal()
                release.wait()
            }
        }
        let exchange = Thread { _ = sink.send(.data(Data("x".utf8))) }
        exchange.start()
        entered.wait()
        // The data callback is blocked on another thread: cancelling must not wait for it.
        #expect(sink.send(.failed(.cancelled)))
        #expect(log.all == ["data"], "queued, not delivered in the middle of the callback")
        #expect(!sink.send(.data(Data("late".utf8))), "nothing is accepted after the terminal event")
        release.signal()
        let deadline = ContinuousClock.now + .seconds(5)
        while log.all.count < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(log.all == ["data", "failed(cancelled)"])
    }

    @Test func aCallbackMayEndTheRequestFromInside() {
        let log = Log()
        let sinkBox = Mutex<ProxyEventSink?>(nil)
        let sink = ProxyEventSink(host: "test.example") { event in
            log.add(event)
            if case .response = event { sinkBox.withLock { $0 }?.send(.failed(.cancelled)) }
        }
        sinkBox.withLock { $0 = sink }
        let head = ProxiedResponseHead(
            statusCode: 200, reasonPhrase: "OK", headers: [], url: URL(fileURLWithPath: "/"), redirected: false)
        #expect(sink.send(.response(head)))
        #expect(!sink.send(.data(Data())))
        #expect(!sink.send(.finished))
        #expect(log.all == ["response", "failed(cancelled)"])
    }
}
