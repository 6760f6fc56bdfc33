import Logging
import Synchronization

/// Races a bridge method against its time limit, and answers at the limit whatever the method's task does.
///
/// The method runs in a task of its own, not a child of the caller: a task group (or any structured child)
/// is awaited to its end, so a method stuck in an await that ignores cancellation (a `callJavaScript` into a
/// page blocked in its prompt, a continuation nobody resumes) would hold the call, and a synchronous call
/// the page's main thread, for as long as it stays stuck. Here whichever comes first, the method's outcome,
/// the deadline or the caller's cancellation, answers once; the method is cancelled and a late outcome is
/// dropped (and logged).
enum CallDeadline {
    fileprivate static let logger = Logger(label: "hybrid.bridge")

    /// Where a call's limit came from, so a log line can say which setting to change.
    enum Source: String, Sendable {
        case method = "the method's own timeout"
        case callTimeout = "BridgeLimits.callTimeout"
        case syncCallTimeout = "BridgeLimits.syncCallTimeout"
    }

    /// Runs `work`, failing with `timeout` at `limit` (and cancelling it) if it has not answered by then. With no
    /// limit the caller waits for `work`; cancelling the caller cancels `work` either way.
    static func run(
        _ work: @escaping @Sendable () async throws -> String, limit: Duration?, source: Source, method: String
    ) async -> Result<String, any Error> {
        guard let limit else {
            do { return .success(try await work()) } catch { return .failure(error) }
        }
        let race = Race(limit: limit, source: source, method: method)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.start(continuation, work)
            }
        } onCancel: {
            // Navigation or close: the bridge has answered the page already; stop the method and let go.
            _ = race.answer(.failure(CancellationError()))
        }
    }

    /// One call's race: a single resumption of the caller's continuation, guarded by a lock.
    private final class Race: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Result<String, any Error>, Never>?
            /// Set once: by the first of the method's outcome, the deadline and the caller's cancellation.
            var answered: Result<String, any Error>?
            var worker: Task<Void, Never>?
            var timer: Task<Void, Never>?
        }

        private let state = Mutex(State())
        private let limit: Duration
        private let source: Source
        private let method: String

        init(limit: Duration, source: Source, method: String) {
            self.limit = limit
            self.source = source
            self.method = method
        }

        func start(
            _ continuation: CheckedContinuation<Result<String, any Error>, Never>,
            _ work: @escaping @Sendable () async throws -> String
        ) {
            // The caller may have been cancelled before it got here.
            let early = state.withLock { state -> Result<String, any Error>? in
                if state.answered == nil { state.continuation = continuation }
                return state.answered
            }
            if let early { return continuation.resume(returning: early) }
            // Unstructured on purpose (see the type's comment); it inherits the caller's priority and task locals.
            let worker = Task {
                let outcome: Result<String, any Error>
                do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
                if !self.answer(outcome) { self.dropLate(outcome) }
            }
            let timer = Task {
                // Cancelled: the call was answered first; nothing to do.
                guard (try? await Task.sleep(for: self.limit)) != nil else { return }
                let timeout = BridgeError(.timeout, "the native method did not answer within \(self.limit)")
                if self.answer(.failure(timeout)) {
                    CallDeadline.logger.warning(
                        """
                        bridge call timed out: the page was told 'timeout' and the method cancelled; \
                        raise \(self.source.rawValue) or make the method answer sooner
                        """,
                        metadata: ["method": "\(self.method)", "limit": "\(self.limit)"])
                }
            }
            let answered = state.withLock { state in
                if state.answered == nil {
                    state.worker = worker
                    state.timer = timer
                }
                return state.answered != nil
            }
            // Answered before the tasks were registered (a method that answers at once, or a cancellation):
            // nobody else will stop them.
            if answered {
                worker.cancel()
                timer.cancel()
            }
        }

        /// Answers the call with `outcome` unless it is answered already; returns whether this answered it.
        /// Stops the other racers: the method (cancelled at the deadline) and the timer (once the method answers).
        func answer(_ outcome: Result<String, any Error>) -> Bool {
            let taken = state.withLock {
                state -> (CheckedContinuation<Result<String, any Error>, Never>?, [Task<Void, Never>])? in
                guard state.answered == nil else { return nil }
                state.answered = outcome
                // Dropping the handles breaks the race ↔ task cycle: nothing outlives the slower racer.
                defer {
                    state.continuation = nil
                    state.worker = nil
                    state.timer = nil
                }
                return (state.continuation, [state.worker, state.timer].compactMap { $0 })
            }
            guard let (continuation, tasks) = taken else { return false }
            for task in tasks { task.cancel() }
            continuation?.resume(returning: outcome)
            return true
        }

        private static let advice =
            "Make it observe cancellation (Task.isCancelled, withTaskCancellationHandler) so it stops with its call"

        /// The method answered after the call was answered (timed out or cancelled): its outcome goes nowhere.
        private func dropLate(_ outcome: Result<String, any Error>) {
            switch outcome {
            case .failure(let error) where error is CancellationError:
                // The method stopped when told to: the behaviour asked of it.
                CallDeadline.logger.debug(
                    "bridge method stopped after its call ended", metadata: ["method": "\(method)"])
            case .success:
                CallDeadline.logger.warning(
                    """
                    bridge method answered after its call ended (timed out or cancelled); its result was dropped. \
                    \(Self.advice)
                    """,
                    metadata: ["method": "\(method)", "limit": "\(limit)"])
            case .failure(let error):
                CallDeadline.logger.warning(
                    """
                    bridge method failed after its call ended (timed out or cancelled); its error was dropped. \
                    \(Self.advice)
                    """,
                    metadata: ["method": "\(method)", "limit": "\(limit)", "error": "\(error)"])
            }
        }
    }
}
