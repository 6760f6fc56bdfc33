import AsyncHTTPClient
import Synchronization

/// Cancels one proxied request whichever hop it is on: the running hop's client task stops (closing its connection
/// if a body was streaming) and no later hop starts.
final class ProxyControl: Sendable {
    typealias HopTask = HTTPClient.Task<ProxyHopDelegate.Decision>

    private struct State {
        var cancelled = false
        var running: HopTask?
    }

    private let state = Mutex(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Starts a hop with `execute` unless the request was cancelled; nil when it was.
    func start(_ execute: () -> HopTask) -> HopTask? {
        guard !isCancelled else { return nil }
        let task = execute()
        // Cancelled while the hop started: it stops here (the client is not called under the lock).
        let cancelled = state.withLock { state in
            if !state.cancelled { state.running = task }
            return state.cancelled
        }
        if cancelled { task.cancel() }
        return task
    }

    func cancel() {
        let running = state.withLock { state in
            state.cancelled = true
            defer { state.running = nil }
            return state.running
        }
        running?.cancel()
    }
}
