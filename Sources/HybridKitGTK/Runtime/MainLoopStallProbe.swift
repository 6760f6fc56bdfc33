#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Synchronization

/// Measures how long GTK's main loop goes without reaching a redraw: a GLib timeout at the priority GDK
/// redraws at, due every `interval`, records when it actually runs. Every web view of the process shares
/// that loop, so the longest gap between two runs is the longest time any view could not paint or answer.
///
/// An idle loop gives gaps of about `interval`: that is the baseline a stall is read against.
public final class MainLoopStallProbe: Sendable {
    /// GDK_PRIORITY_REDRAW (G_PRIORITY_HIGH_IDLE + 20): sources above it (lower numbers) run first.
    public static let redrawPriority: Int32 = 120

    private struct State {
        var last: ContinuousClock.Instant?
        var longest: Duration = .zero
        var ticks = 0
        var running = true
    }

    private let state = Mutex(State())
    private let interval: Duration

    /// Starts ticking at once. Call ``stop()`` to detach the source.
    @GTKActor
    public init(interval: Duration = .milliseconds(16)) {
        self.interval = interval
        let milliseconds = UInt32(
            max(1, interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000))
        let source = g_timeout_source_new(milliseconds)
        g_source_set_priority(source, Self.redrawPriority)
        g_source_set_callback(
            source,
            { data in
                guard let data else { return 0 }
                let probe = Unmanaged<MainLoopStallProbe>.fromOpaque(data).takeUnretainedValue()
                return probe.tick() ? 1 : 0
            }, Unmanaged.passRetained(self).toOpaque(),
            { data in
                guard let data else { return }
                Unmanaged<MainLoopStallProbe>.fromOpaque(data).release()
            })
        g_source_attach(source, g_main_context_default())
        g_source_unref(source)
    }

    /// Records one run; false once stopped (GLib then drops the source).
    private func tick() -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard state.running else { return false }
            if let last = state.last { state.longest = max(state.longest, now - last) }
            state.last = now
            state.ticks += 1
            return true
        }
    }

    /// Forgets what was measured so far: the next gap counts from the next tick.
    public func reset() {
        state.withLock { state in
            state.last = nil
            state.longest = .zero
            state.ticks = 0
        }
    }

    /// The longest time between two ticks since the last reset, and how many ticks there were.
    public var reading: (longestGap: Duration, ticks: Int) {
        state.withLock { ($0.longest, $0.ticks) }
    }

    public func stop() {
        state.withLock { $0.running = false }
    }
}
#endif
