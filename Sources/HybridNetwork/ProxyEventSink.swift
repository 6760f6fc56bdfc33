import HybridKit
import Logging
import Metrics
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
    /// The request's host, for the log line of a failure.
    private let host: String

    init(host: String, _ events: @escaping @Sendable (ProxyEvent) -> Void) {
        self.host = host
        self.events = events
    }

    /// Made per request, not once per process: a logger keeps the backend it was made with, and the app may
    /// bootstrap its backend after the first request.
    private let logger = Logger(label: "hybrid.network")

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
        record(event)
        if deliverHere { drain() }
        return true
    }

    /// Counts the request by how it ended (once: only the terminal event that ends it gets here).
    private func record(_ event: ProxyEvent) {
        let outcome: String
        switch event {
        case .response, .data: return
        case .finished: outcome = "ok"
        case .failed(let error):
            outcome = error.metricOutcome
            if error != .cancelled {
                logger.notice(
                    "proxy request failed", metadata: ["host": "\(host)", "outcome": "\(outcome)", "error": "\(error)"])
            }
        }
        Counter(label: HybridMetrics.proxyRequests, dimensions: [("outcome", outcome)]).increment()
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

extension ProxyError {
    /// A fixed word for metrics: never the page-controlled host or URL inside the error.
    var metricOutcome: String {
        switch self {
        case .unsupportedScheme, .hostNotAllowed, .addressNotAllowed: "refused"
        case .requestBodyTooLarge, .responseTooLarge: "too_large"
        case .requestBodyFailed: "body_failed"
        case .tooManyRedirects, .redirectRefused: "redirect_refused"
        case .network: "network_error"
        case .cancelled: "cancelled"
        }
    }
}
