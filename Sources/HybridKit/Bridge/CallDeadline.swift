import Dispatch
import Logging
import Synchronization

/// Runs a bridge method against its time limit, and answers at the limit whatever the method's task does.
///
/// The method runs in a task of its own, not a child of the caller: a task group (or any structured child) is
/// awaited to its end, so a method stuck in an await that ignores cancellation (a `callJavaScript` into a page
/// blocked in its prompt, a continuation nobody resumes) would hold the call, and a synchronous call the page's
/// main thread, for as long as it stays stuck. Whichever comes first, the method's outcome or the deadline,
/// answers once; at the deadline the method is cancelled and a late outcome is dropped (and logged).
///
/// The deadline is a dispatch work item rather than a sleeping task: a call that answers in time (nearly all of
/// them) costs one task and a cancelled work item, where a task per racer cost a tenth of a small call's round trip.
enum CallDeadline {
    fileprivate static let logger = Logger(label: "hybrid.bridge")

    /// Where a call's limit came from, so a log line can say which setting to change.
    enum Source: String, Sendable {
        case method = "the method's own timeout"
        case callTimeout = "BridgeLimits.callTimeout"
        case syncCallTimeout = "BridgeLimits.syncCallTimeout"
    }

    /// Starts `work` and hands its outcome to `answer`, or, if `limit` passes first, a `timeout` error (and cancels
    /// `work`). `answer` runs exactly once, unless the returned task is cancelled first (the call was abandoned:
    /// navigation or close), which cancels `work` and the deadline and answers with the method's own outcome.
    static func start(
        _ work: @escaping @Sendable () async throws -> String, limit: Duration?, source: Source, method: String,
        answer: @escaping @Sendable (Result<String, any Error>) async -> Void
    ) -> Task<Void, Never> {
        let race = Race(limit: limit, source: source, method: method)
        let deadline = limit.map { limit in
            Deadline(
                DispatchWorkItem {
                    guard race.takeAnswer() else { return }
                    race.timedOut()
                    let timeout = BridgeError(.timeout, "the native method did not answer within \(limit)")
                    Task { await answer(.failure(timeout)) }
                })
        }
        race.arm(deadline)
        let worker = Task {
            let outcome: Result<String, any Error>
            do {
                outcome = .success(try await withTaskCancellationHandler(operation: work, onCancel: race.disarm))
            } catch {
                outcome = .failure(error)
            }
            if race.takeAnswer() { await answer(outcome) } else { race.dropLate(outcome) }
        }
        race.watch(worker)
        if let deadline, let limit {
            DispatchQueue.global().asyncAfter(deadline: .now() + limit.dispatchInterval, execute: deadline.item)
        }
        return worker
    }

    /// A call's deadline. `@unchecked Sendable` because swift-corelibs-libdispatch does not mark `DispatchWorkItem`
    /// Sendable, though it is made for use across threads: `cancel()` is an atomic flag that may be set from any
    /// thread, and a cancelled item scheduled later never runs. Nothing else of the item is touched after it is built.
    private struct Deadline: @unchecked Sendable {
        let item: DispatchWorkItem
        init(_ item: DispatchWorkItem) { self.item = item }
        func cancel() { item.cancel() }
    }

    /// One call's race between its method and its deadline: who answered, guarded by a lock.
    private final class Race: Sendable {
        private struct State {
            var answered = false
            var deadline: Deadline?
            var worker: Task<Void, Never>?
        }

        private let state = Mutex(State())
        private let limit: Duration?
        private let source: Source
        private let method: String

        init(limit: Duration?, source: Source, method: String) {
            self.limit = limit
            self.source = source
            self.method = method
        }

        func arm(_ deadline: Deadline?) { state.withLock { $0.deadline = deadline } }

        /// Keeps the method's task, so the deadline can cancel it; cancels it at once if the deadline came first.
        func watch(_ worker: Task<Void, Never>) {
            let late = state.withLock { state in
                if !state.answered { state.worker = worker }
                return state.answered
            }
            if late { worker.cancel() }
        }

        /// Takes the right to answer; true for the first caller only. Whoever takes it stops the other racer's
        /// clock: a cancelled work item never runs, and dropping the handles breaks the race ↔ task cycle.
        func takeAnswer() -> Bool {
            let deadline = state.withLock { state -> Deadline?? in
                guard !state.answered else { return .none }
                state.answered = true
                defer { state.deadline = nil }
                return .some(state.deadline)
            }
            guard let deadline else { return false }
            deadline?.cancel()
            return true
        }

        /// The call was abandoned (its task cancelled): the deadline has nothing left to answer.
        func disarm() { state.withLock { $0.deadline }?.cancel() }

        /// The deadline answered: stop the method, and say which setting to change.
        func timedOut() {
            state.withLock { state in
                defer { state.worker = nil }
                return state.worker
            }?.cancel()
            CallDeadline.logger.warning(
                """
                bridge call timed out: the page was told 'timeout' and the method cancelled; \
                raise \(source.rawValue) or make the method answer sooner
                """,
                metadata: ["method": "\(method)", "limit": "\(limit.map { "\($0)" } ?? "none")"])
        }

        private static let advice =
            "Make it observe cancellation (Task.isCancelled, withTaskCancellationHandler) so it stops with its call"

        /// The method answered after the deadline did: its outcome goes nowhere.
        func dropLate(_ outcome: Result<String, any Error>) {
            let limit = "\(limit.map { "\($0)" } ?? "none")"
            switch outcome {
            case .failure(let error) where error is CancellationError:
                // The method stopped when told to: the behaviour asked of it.
                CallDeadline.logger.debug(
                    "bridge method stopped after its call ended", metadata: ["method": "\(method)"])
            case .success:
                CallDeadline.logger.warning(
                    "bridge method answered after its call timed out; its result was dropped. \(Self.advice)",
                    metadata: ["method": "\(method)", "limit": "\(limit)"])
            case .failure(let error):
                CallDeadline.logger.warning(
                    "bridge method failed after its call timed out; its error was dropped. \(Self.advice)",
                    metadata: ["method": "\(method)", "limit": "\(limit)", "error": "\(error)"])
            }
        }
    }
}

extension Duration {
    /// The duration for Dispatch, to the nanosecond (a limit of centuries never fires).
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        guard seconds < Int64(Int.max / 1_000_000_000) - 1 else { return .never }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
