import Synchronization

/// One response in flight (a file being read, a fetch running), so `stop(_:)` can end it.
final class Transfer: Sendable {
    private let state = Mutex<(cancelled: Bool, fetch: (any NetworkFetchCancelling)?)>((false, nil))

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
