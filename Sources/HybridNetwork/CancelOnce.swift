import Synchronization

/// Holds the one thing a proxied request would have to stop (the running hop's client task, the timeout's timer)
/// and stops it at most once: what is handed over after ``cancel()`` is stopped at once. So a cancel that races a
/// hop starting, or an exchange that ends before its timer is armed, leaves nothing running.
final class CancelOnce<Item: Sendable>: Sendable {
    private struct State {
        var cancelled = false
        var item: Item?
    }

    private let state = Mutex(State())
    private let stop: @Sendable (Item) -> Void

    init(stopping stop: @escaping @Sendable (Item) -> Void) {
        self.stop = stop
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Keeps `item` to stop on ``cancel()``, in place of the last one; false, with `item` stopped here, when the
    /// request was already cancelled.
    @discardableResult
    func hold(_ item: Item) -> Bool {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.item = item }
            return state.cancelled
        }
        // Stopped outside the lock: stopping a client task may call back into the request.
        if cancelled { stop(item) }
        return !cancelled
    }

    func cancel() {
        let item = state.withLock { state in
            state.cancelled = true
            defer { state.item = nil }
            return state.item
        }
        if let item { stop(item) }
    }
}
