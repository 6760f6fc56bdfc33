#if !canImport(Darwin)
import Foundation
import Synchronization

/// The process's one engine thread, and the serial executor of ``EngineActor`` on it.
///
/// The thread runs from first use, so engine-isolated code can always be scheduled: a plain job loop at first,
/// which core code and tests with a fake engine use as they are. An engine whose own event loop must run on that
/// thread (WebKitGTK, whose GLib main loop dispatches its signals) takes it over with
/// ``handOver(to:running:)``: its loop then drains the jobs queued here between its own events, and the thread,
/// the executor and the isolation stay the same, so nothing scheduled before the hand-over is lost or moved.
///
/// Jobs are queued in two lanes. Interactive jobs run first; background- and utility-priority ones, and any queue
/// that outlasts its budget (8 ms a turn), go on in the lane that yields to the engine's painting and input
/// (``Drain/yieldsToDrawing``), because every web view of the process shares this thread.
public final class EngineThread: SerialExecutor, Sendable {
    public static let shared = EngineThread()

    /// A queue of jobs on the engine thread.
    public enum Lane: Sendable { case interactive, background }

    /// A request, made on any thread, to run ``EngineThread/drain(_:)`` for `lane` on the engine thread.
    public struct Drain: Sendable {
        public let lane: Lane
        /// True when the drain should wait for the engine's painting and input: a background lane, or a queue
        /// that outlasted its last budget.
        public let yieldsToDrawing: Bool
    }

    /// What runs the engine thread once an engine's event loop has taken it over.
    public protocol Loop: Sendable {
        /// Called on any thread: arrange for `EngineThread.shared.drain(drain.lane)` to run on the engine thread,
        /// once, soon. Called again only after that drain has run.
        func schedule(_ drain: Drain)
    }

    private struct Queue: ~Copyable {
        var jobs: [UnownedJob] = []
        var drainScheduled = false
        /// The queue outlasted its budget: its next drain waits for painting and input.
        var yielding = false
    }

    private struct State: ~Copyable {
        var interactive = Queue()
        var background = Queue()
        /// The event loop that drains the queues; nil while the thread runs its own job loop.
        var loop: (any Loop)?
        /// Drains the thread's own job loop still has to run, oldest first.
        var pending: [Lane] = []
        /// An engine loop waiting to take the thread over.
        var handOver: HandOver?
        var threadID: pthread_t?

        mutating func with<T>(_ lane: Lane, _ body: (inout Queue) -> T) -> T {
            switch lane {
            case .interactive: body(&interactive)
            case .background: body(&background)
            }
        }

        /// The drain `lane` needs now.
        mutating func drain(of lane: Lane) -> Drain {
            with(lane) { Drain(lane: lane, yieldsToDrawing: lane == .background || $0.yielding) }
        }

        /// Notes that `lane` needs a drain; says which drain and which loop runs it (nil: the thread's own).
        mutating func schedule(_ lane: Lane) -> Scheduled {
            if loop == nil { pending.append(lane) }
            return (drain(of: lane), loop)
        }
    }

    /// A drain to run, and the engine loop that runs it (nil: the thread's own loop).
    private typealias Scheduled = (drain: Drain, loop: (any Loop)?)

    private struct HandOver {
        let loop: any Loop
        let run: @Sendable () -> Void
    }

    /// Jobs a drain may run back to back before it lets the engine's loop turn.
    private static let budget: Duration = .milliseconds(8)

    private let state = Mutex(State())
    /// Signalled once for each drain the thread's own loop must run, and for a hand-over.
    private let wakeUp = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            state.withLock { $0.threadID = pthread_self() }
            runOwnLoop()
        }
        thread.name = "engine"
        // WebKitGTK treats this thread as its main thread: the main thread's stack, not a worker's.
        thread.stackSize = 8 << 20
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        // 0 is "unspecified" (jobs that never had a priority): those are interactive.
        let priority = job.priority.rawValue
        let lane: Lane = priority != 0 && priority < TaskPriority.medium.rawValue ? .background : .interactive
        let job = UnownedJob(job)
        let scheduled = state.withLock { state -> Scheduled? in
            let needsDrain = state.with(lane) { queue -> Bool in
                queue.jobs.append(job)
                defer { queue.drainScheduled = true }
                return !queue.drainScheduled
            }
            return needsDrain ? state.schedule(lane) : nil
        }
        start(scheduled)
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets engine-isolated code be entered from the engine's own callbacks (a GLib signal handler, the C
    /// boundary), which run on this thread outside any job.
    public func checkIsolated() {
        precondition(isCurrent, "not on the engine thread: engine calls must run on EngineActor")
    }

    /// True on the engine thread.
    public var isCurrent: Bool {
        guard let id = state.withLock({ $0.threadID }) else { return false }
        return pthread_equal(id, pthread_self()) != 0
    }

    /// Has `loop` take the thread over: once the jobs the thread is running now are done, it calls `run` (which
    /// runs the engine's event loop, and returns only when that loop is quit), and from then on `loop` schedules
    /// every drain. Jobs queued meanwhile are drained by `loop`. After `run` returns the thread runs no more jobs:
    /// an engine that quits its loop is gone for the rest of the process. Call it once, on any thread.
    public func handOver(to loop: any Loop, running run: @escaping @Sendable () -> Void) {
        state.withLock { state in
            precondition(state.handOver == nil && state.loop == nil, "the engine thread was handed over twice")
            state.handOver = HandOver(loop: loop, run: run)
        }
        wakeUp.signal()
    }

    /// Runs the jobs queued in `lane` so far, until the budget is spent; jobs they enqueue wait for the next drain
    /// so the engine's events are not starved. Schedules the next drain when jobs are left. For the engine
    /// loop's drains (``Loop/schedule(_:)``); call it on the engine thread only.
    public func drain(_ lane: Lane) {
        checkIsolated()
        let batch = state.withLock { $0.with(lane) { $0.jobs.take() } }
        let me = asUnownedSerialExecutor()
        let deadline = ContinuousClock.now + Self.budget
        var ran = 0
        while ran < batch.count {
            batch[ran].runSynchronously(on: me)
            ran += 1
            if ContinuousClock.now >= deadline { break }
        }
        let leftover = batch[ran...]
        let scheduled = state.withLock { state -> Scheduled? in
            let needsDrain = state.with(lane) { queue -> Bool in
                queue.yielding = !leftover.isEmpty
                if queue.yielding { queue.jobs.insert(contentsOf: leftover, at: 0) }
                queue.drainScheduled = !queue.jobs.isEmpty
                return queue.drainScheduled
            }
            return needsDrain ? state.schedule(lane) : nil
        }
        start(scheduled)
    }

    /// Has a scheduled drain run: by the engine's loop, or by waking the thread's own.
    private func start(_ scheduled: Scheduled?) {
        guard let scheduled else { return }
        if let loop = scheduled.loop { loop.schedule(scheduled.drain) } else { wakeUp.signal() }
    }

    /// The thread's own job loop, until an engine loop takes the thread over.
    private func runOwnLoop() {
        while true {
            wakeUp.wait()
            let next = state.withLock { state -> NextStep in
                if let handOver = state.handOver {
                    state.loop = handOver.loop
                    // Drains the own loop still owed move to the engine loop, in order.
                    let lanes = state.pending
                    state.pending.removeAll()
                    let owed = lanes.map { state.drain(of: $0) }
                    return .handOver(handOver, owed)
                }
                return state.pending.isEmpty ? .idle : .drain(state.pending.removeFirst())
            }
            switch next {
            case .idle: continue
            case .drain(let lane): drain(lane)
            case .handOver(let handOver, let owed):
                for drain in owed { handOver.loop.schedule(drain) }
                handOver.run()
                // The engine's loop was quit: its engine is gone, and so is every job's reason to run.
                while true { DispatchSemaphore(value: 0).wait() }
            }
        }
    }

    /// What the thread's own loop does after a wake-up.
    private enum NextStep {
        case idle
        case drain(Lane)
        case handOver(HandOver, [Drain])
    }
}

extension Array {
    /// The elements, leaving the array empty with its capacity kept.
    fileprivate mutating func take() -> [Element] {
        defer { removeAll(keepingCapacity: true) }
        return self
    }
}
#endif
