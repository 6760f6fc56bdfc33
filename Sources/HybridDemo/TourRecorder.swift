#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Synchronization

/// One line of a tour: a capability and whether it works.
public struct TourLine: Sendable, Equatable {
    public let name: String
    public let passed: Bool
    public let detail: String
}

/// What a tour page said when it called `tour.done`.
public struct TourEnd: Sendable, Equatable, Codable {
    /// The checks the page counted as failed (the tour stopped early with an error: -1).
    public let failures: Int
    /// Why the page stopped early, when it did.
    public let error: String?

    public init(failures: Int, error: String? = nil) {
        self.failures = failures
        self.error = error
    }
}

/// Collects the lines a tour page reports, and tells when the page says it is done.
final class TourRecorder: Sendable {
    private struct State {
        var lines: [TourLine] = []
        var end: TourEnd?
        var timedOut = false
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

    /// The page says it is done (the first time counts).
    func finish(_ end: TourEnd) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.end == nil { state.end = end }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Stops waiting without the page having said it is done.
    private func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.timedOut = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Waits for ``finish(_:)``, or at most `timeout`; returns what the page said, or nil when it did not
    /// finish in time.
    func waitUntilFinished(timeout: Duration) async -> TourEnd? {
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.wake()
        }
        defer { timer.cancel() }
        await withCheckedContinuation { continuation in
            let alreadyDone = state.withLock { state in
                let done = state.end != nil || state.timedOut
                if !done { state.waiter = continuation }
                return done
            }
            if alreadyDone { continuation.resume() }
        }
        return state.withLock { $0.end }
    }
}
#endif
