import Synchronization

/// One response in flight (a file being read, a fetch running), so `stop(_:)` can end it.
final class Transfer: Sendable {
    private let state = Mutex<(cancelled: Bool, fetch: (any NetworkFetchCancelling)?)>((false, nil))
    private let pending = Mutex<[NetworkFetchEvent]>([])

    /// Queues a network event; ``drain()`` hands them out in arrival order. Hops are not guaranteed to run in
    /// the order they were made, so each hop drains whatever has arrived rather than carrying its own event.
    func enqueue(_ event: NetworkFetchEvent) { pending.withLock { $0.append(event) } }

    func drain() -> [NetworkFetchEvent] {
        pending.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func attach(_ fetch: any NetworkFetchCancelling) {
        let cancelled = state.withLock { state in
            state.fetch = fetch
            return state.cancelled
        }
        if cancelled { fetch.cancel() }
    }

    func cancel() {
        let fetch = state.withLock { state in
            state.cancelled = true
            return state.fetch
        }
        fetch?.cancel()
    }
}
