import AsyncHTTPClient
import Foundation
import HybridKit
import NIOCore
import NIOHTTP1
import Synchronization

/// Receives one hop's response on the client's event loop. The exchange decides on the head at once (a redirect to
/// follow, or an answer for the page); an answer's head and body go to the sink as they arrive, with no task
/// between upstream and the page, and a redirect's body is read and dropped so its connection can be reused.
final class ProxyHopDelegate: HTTPClientResponseDelegate {
    /// What the exchange made of a response head.
    enum Decision: Sendable {
        /// A redirect to follow: the exchange sends `next` once this hop's body is read.
        case follow(ProxyHop)
        /// An answer: its head went to the sink; its body follows, cut off past `limit` bytes.
        case deliver(limit: Int)
        /// The request ended while the head was being handled (the page cancelled it): the hop stops.
        case stop
    }

    typealias Response = Decision

    private enum State {
        case awaitingHead
        case delivering(received: Int, limit: Int)
        case draining(next: ProxyHop)
        case stopped
    }

    private let sink: ProxyEventSink
    private let decide: @Sendable (HTTPResponseHead) throws(ProxyError) -> Decision
    private let state = Mutex(State.awaitingHead)

    init(sink: ProxyEventSink, decide: @escaping @Sendable (HTTPResponseHead) throws(ProxyError) -> Decision) {
        self.sink = sink
        self.decide = decide
    }

    func didReceiveHead(task: HTTPClient.Task<Decision>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let next: State
        do {
            switch try decide(head) {
            case .follow(let hop): next = .draining(next: hop)
            case .deliver(let limit): next = .delivering(received: 0, limit: limit)
            case .stop: next = .stopped
            }
        } catch {
            state.withLock { $0 = .stopped }
            return task.eventLoop.makeFailedFuture(error)
        }
        state.withLock { $0 = next }
        if case .stopped = next { return task.eventLoop.makeFailedFuture(CancellationError()) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Decision>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let outcome: Result<Bool, ProxyError> = state.withLock { state in
            guard case .delivering(var received, let limit) = state else { return .success(false) }
            received += buffer.readableBytes
            guard received <= limit else {
                state = .stopped
                return .failure(.responseTooLarge(limit: limit))
            }
            state = .delivering(received: received, limit: limit)
            return .success(true)
        }
        switch outcome {
        case .failure(let error):
            return task.eventLoop.makeFailedFuture(error)
        case .success(false):
            return task.eventLoop.makeSucceededVoidFuture()
        case .success(true):
            let chunk = buffer.withUnsafeReadableBytes { Data($0) }
            guard sink.send(.data(chunk)) else {
                state.withLock { $0 = .stopped }
                return task.eventLoop.makeFailedFuture(CancellationError())
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }
    }

    func didReceiveError(task: HTTPClient.Task<Decision>, _ error: any Error) {
        state.withLock { $0 = .stopped }
    }

    func didFinishRequest(task: HTTPClient.Task<Decision>) throws -> Decision {
        switch state.withLock({ $0 }) {
        case .delivering(_, let limit):
            sink.send(.finished)
            return .deliver(limit: limit)
        case .draining(let next):
            return .follow(next)
        case .awaitingHead, .stopped:
            throw CancellationError()
        }
    }
}
