import Foundation
import HybridCore

/// Delivers one request's events in order and makes sure exactly one terminal event (`finished` or `failed`)
/// reaches the caller, with nothing after it, whoever ends the request first: the exchange, `cancel()` or the
/// timeout. A recursive lock, because a caller may cancel from inside its own event callback.
final class ProxyEventSink: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var ended = false
    private let events: @Sendable (ProxyEvent) -> Void

    init(_ events: @escaping @Sendable (ProxyEvent) -> Void) { self.events = events }

    var hasEnded: Bool { lock.withLock { ended } }

    /// False when the request already ended and the event was dropped.
    @discardableResult
    func send(_ event: ProxyEvent) -> Bool {
        lock.withLock {
            guard !ended else { return false }
            switch event {
            case .finished, .failed: ended = true
            case .response, .data: break
            }
            events(event)
            return true
        }
    }
}
