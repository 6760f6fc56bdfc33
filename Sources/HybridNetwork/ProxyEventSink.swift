import HybridCore
import Synchronization

/// Delivers one request's events in order and makes sure exactly one terminal event (`finished` or `failed`)
/// reaches the caller, with nothing after it, whoever ends the request first: the exchange, `cancel()` or the
/// timeout.
///
/// No lock is held while the caller's callback runs: an event sent while another is being delivered (a cancel from
/// another thread, or from inside the callback itself) is queued and delivered right after it by the thread already
/// delivering. So `cancel()` never waits for a callback, and a callback may cancel without deadlocking.
final class ProxyEventSink: Sendable {
    private struct State {
        var ended = false
        var delivering = false
        var queue: [ProxyEvent] = []
    }

    private let state = Mutex(State())
    private let events: @Sendable (ProxyEvent) -> Void

    init(_ events: @escaping @Sendable (ProxyEvent) -> Void) { self.events = events }

    /// False when the request already ended and the event was dropped.
    @discardableResult
    func send(_ event: ProxyEvent) -> Bool {
        let deliverHere = state.withLock { state -> Bool? in
            guard !state.ended else { return nil }
            switch event {
            case .finished, .failed: state.ended = true
            case .response, .data: break
            }
            state.queue.append(event)
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard let deliverHere else { return false }
        if deliverHere { drain() }
        return true
    }

    private func drain() {
        while let next = state.withLock({ state -> ProxyEvent? in
            guard !state.queue.isEmpty else {
                state.delivering = false
                return nil
            }
            return state.queue.removeFirst()
        }) {
            events(next)
        }
    }
}
