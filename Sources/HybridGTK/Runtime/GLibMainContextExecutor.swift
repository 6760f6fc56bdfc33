import CWebKitGTK
import Synchronization

/// A serial executor that runs jobs on the thread iterating a GLib main context — GTK's thread.
///
/// GTK owns that thread, so neither `DispatchQueue.main` nor a polling loop is a good fit: jobs are queued
/// here and one GLib source drains them, woken only when the queue goes from empty to non-empty. Async code
/// hops onto the GTK thread in microseconds, with no timer and no latency floor.
public final class GLibMainContextExecutor: SerialExecutor, Sendable {
    private struct State: ~Copyable {
        var jobs: [UnownedJob] = []
        var drainScheduled = false
    }

    // GMainContext's attach/wakeup/is_owner functions are documented thread-safe.
    nonisolated(unsafe) private let context: OpaquePointer
    private let state = Mutex(State())

    /// - Parameter context: the main context whose owner runs the jobs (GTK uses the default one).
    init(context: OpaquePointer) {
        self.context = context
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let mustSchedule = state.withLock { state in
            state.jobs.append(job)
            defer { state.drainScheduled = true }
            return !state.drainScheduled
        }
        if mustSchedule { scheduleDrain() }
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

    private func scheduleDrain() {
        let source = g_idle_source_new()
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(
            source,
            { data in
                // G_SOURCE_CONTINUE is defined as TRUE, i.e. (!FALSE), which Swift cannot import in every
                // build configuration: spell the two values out.
                guard let data else { return 0 }
                let executor = Unmanaged<GLibMainContextExecutor>.fromOpaque(data).takeUnretainedValue()
                return executor.drain() ? 1 : 0
            }, Unmanaged.passRetained(self).toOpaque(),
            { data in
                guard let data else { return }
                Unmanaged<GLibMainContextExecutor>.fromOpaque(data).release()
            })
        g_source_attach(source, context)
        g_source_unref(source)
    }

    /// Runs the jobs queued so far; jobs they enqueue wait for the next turn so GLib events are not starved.
    /// Returns whether more jobs are waiting (the source then stays attached).
    private func drain() -> Bool {
        let batch = state.withLock { state in
            defer { state.jobs.removeAll(keepingCapacity: true) }
            return state.jobs
        }
        let me = asUnownedSerialExecutor()
        for job in batch { job.runSynchronously(on: me) }
        return state.withLock { state in
            state.drainScheduled = !state.jobs.isEmpty
            return state.drainScheduled
        }
    }
}
