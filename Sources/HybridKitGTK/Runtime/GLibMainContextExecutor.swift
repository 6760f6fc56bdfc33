#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Synchronization

/// A serial executor that runs jobs on the thread iterating a GLib main context — GTK's thread.
///
/// GTK owns that thread, so neither `DispatchQueue.main` nor a polling loop is a good fit: jobs are queued
/// here and a GLib source drains them, woken only when its queue goes from empty to non-empty. Async code
/// hops onto the GTK thread in microseconds, with no timer and no latency floor.
///
/// Every web view of the process shares that thread, so a long queue must not hold it: jobs run at
/// `G_PRIORITY_DEFAULT` (ahead of WebKit's own dispatch and of redraws) only while they keep within a budget
/// per turn. A queue that outlasts its budget goes on below redraw priority, and jobs of tasks with
/// background or utility priority always run there: GTK paints, takes input and hands WebKit its messages
/// between them.
public final class GLibMainContextExecutor: SerialExecutor, Sendable {
    /// One queue and the GLib source that drains it.
    private struct Lane: ~Copyable {
        /// The priority of its drains while it keeps within the budget.
        let normalPriority: Int32
        var jobs: [UnownedJob] = []
        var drainScheduled = false
        /// The queue outlasted its budget: its next drain waits for painting and input.
        var yielding = false

        /// Queues `job`; returns the priority of the drain to schedule, or nil when one is already scheduled.
        mutating func add(_ job: UnownedJob) -> Int32? {
            jobs.append(job)
            guard !drainScheduled else { return nil }
            drainScheduled = true
            return yielding ? yieldingPriority : normalPriority
        }

        mutating func take() -> [UnownedJob] {
            defer { jobs.removeAll(keepingCapacity: true) }
            return jobs
        }

        /// Puts back the jobs a drain did not reach, ahead of those queued meanwhile; returns the priority of
        /// the next drain, or nil when the lane is empty.
        mutating func settle(leftover: ArraySlice<UnownedJob>) -> Int32? {
            yielding = !leftover.isEmpty
            if yielding { jobs.insert(contentsOf: leftover, at: 0) }
            drainScheduled = !jobs.isEmpty
            guard drainScheduled else { return nil }
            return yielding ? yieldingPriority : normalPriority
        }
    }

    private struct State: ~Copyable {
        var interactive = Lane(normalPriority: G_PRIORITY_DEFAULT)
        var background = Lane(normalPriority: yieldingPriority)

        mutating func with<T>(_ lane: LaneID, _ body: (inout Lane) -> T) -> T {
            switch lane {
            case .interactive: body(&interactive)
            case .background: body(&background)
            }
        }
    }

    private enum LaneID { case interactive, background }

    /// Redraws (GDK_PRIORITY_REDRAW) run at 120 and WebKit dispatches its IPC at 100: a source below both.
    private static let yieldingPriority: Int32 = 121
    /// Jobs a drain may run back to back before it lets the loop turn.
    private static let budget: Duration = .milliseconds(8)

    // GMainContext's attach/wakeup/is_owner functions are documented thread-safe.
    nonisolated(unsafe) private let context: OpaquePointer
    private let state = Mutex(State())

    /// - Parameter context: the main context whose owner runs the jobs (GTK uses the default one).
    init(context: OpaquePointer) {
        self.context = context
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        // 0 is "unspecified" (jobs that never had a priority): those are interactive.
        let priority = job.priority.rawValue
        let lane: LaneID = priority != 0 && priority < TaskPriority.medium.rawValue ? .background : .interactive
        let job = UnownedJob(job)
        let schedule = state.withLock { $0.with(lane) { $0.add(job) } }
        if let schedule { scheduleDrain(lane, priority: schedule) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` succeed in GLib callbacks (signal handlers) that run on the GTK thread.
    public func checkIsolated() {
        precondition(isOnExecutorThread, "not on the GTK thread: WebKitGTK calls must run on GLibMainContextExecutor")
    }

    /// True on the thread that currently owns the main context.
    public var isOnExecutorThread: Bool { g_main_context_is_owner(context) != 0 }

    private final class DrainRequest {
        let executor: GLibMainContextExecutor
        let lane: LaneID
        init(_ executor: GLibMainContextExecutor, _ lane: LaneID) {
            self.executor = executor
            self.lane = lane
        }
    }

    private func scheduleDrain(_ lane: LaneID, priority: Int32) {
        let source = g_idle_source_new()
        g_source_set_priority(source, priority)
        g_source_set_callback(
            source,
            { data in
                guard let data else { return 0 }
                let request = Unmanaged<DrainRequest>.fromOpaque(data).takeUnretainedValue()
                request.executor.drain(request.lane)
                // Each drain schedules the next one itself, at the priority it calls for: this source is done.
                return 0
            }, Unmanaged.passRetained(DrainRequest(self, lane)).toOpaque(),
            { data in
                guard let data else { return }
                Unmanaged<DrainRequest>.fromOpaque(data).release()
            })
        g_source_attach(source, context)
        g_source_unref(source)
    }

    /// Runs the jobs queued so far, until the budget is spent; jobs they enqueue wait for the next turn so
    /// GLib events are not starved. Schedules the next drain when jobs are left.
    private func drain(_ lane: LaneID) {
        let batch = state.withLock { $0.with(lane) { $0.take() } }
        let me = asUnownedSerialExecutor()
        let deadline = ContinuousClock.now + Self.budget
        var ran = 0
        while ran < batch.count {
            batch[ran].runSynchronously(on: me)
            ran += 1
            if ContinuousClock.now >= deadline { break }
        }
        let leftover = batch[ran...]
        let schedule = state.withLock { $0.with(lane) { $0.settle(leftover: leftover) } }
        if let schedule { scheduleDrain(lane, priority: schedule) }
    }
}
#endif
