#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import HybridKit
import HybridKitGTK
import Synchronization

/// Hears a benchmark page post its one "done" message, and notes when it arrived.
final class PageDoneSignal: ScriptMessageHandler, Sendable {
    struct Outcome {
        let text: String
        let arrival: ContinuousClock.Instant
    }

    private let waiter = Mutex<CheckedContinuation<Outcome, any Error>?>(nil)

    func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
        // Stamped first, so the time spent resuming the waiter is not counted.
        let arrival = ContinuousClock.now
        guard case .string(let text) = message.body else { return }
        deliver(Outcome(text: text, arrival: arrival))
    }

    private func deliver(_ outcome: Outcome) {
        waiter.withLock { $0.take() }?.resume(returning: outcome)
    }

    /// Calls `start` and waits for the page's message; "timeout" when none comes in `timeout`, so a page that
    /// never loads fails the benchmark instead of hanging it.
    @GTKActor func wait(timeout: Duration, starting start: () throws -> Void) async throws -> Outcome {
        let timer = Task { @GTKActor in
            try await Task.sleep(for: timeout)
            self.deliver(Outcome(text: "timeout after \(timeout)", arrival: .now))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            waiter.withLock { $0 = continuation }
            do {
                try start()
            } catch {
                waiter.withLock { $0 = nil }
                continuation.resume(throwing: error)
            }
        }
    }
}
#endif
