import Synchronization

/// One line of a tour: a capability and whether it works.
public struct TourLine: Sendable, Equatable {
    public let name: String
    public let passed: Bool
    public let detail: String
}

/// Collects the lines a tour page reports, and tells when the page says it is done.
final class TourRecorder: Sendable {
    private struct State {
        var lines: [TourLine] = []
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())
    private let onLine: @Sendable (TourLine) -> Void

    init(onLine: @escaping @Sendable (TourLine) -> Void) { self.onLine = onLine }

    var lines: [TourLine] { state.withLock { $0.lines } }

    func record(_ line: TourLine) {
        state.withLock { $0.lines.append(line) }
        onLine(line)
    }

    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Waits for ``finish()``, or at most `timeout`; returns whether the page finished.
    func waitUntilFinished(timeout: Duration) async -> Bool {
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.finish()
        }
        defer { timer.cancel() }
        await withCheckedContinuation { continuation in
            let alreadyDone = state.withLock { state in
                if !state.finished { state.waiter = continuation }
                return state.finished
            }
            if alreadyDone { continuation.resume() }
        }
        return !timer.isCancelled
    }
}
