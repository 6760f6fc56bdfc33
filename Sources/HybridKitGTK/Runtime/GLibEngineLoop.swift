#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import HybridKit

/// Drains the engine thread's jobs from GLib's main loop once GTK has taken that thread over.
///
/// GTK owns the thread, so neither `DispatchQueue.main` nor a polling loop is a good fit: each drain is a GLib
/// idle source, attached only when a queue goes from empty to non-empty. Async code hops onto GTK's thread in
/// microseconds, with no timer and no latency floor. Interactive drains run at `G_PRIORITY_DEFAULT` (ahead of
/// WebKit's own dispatch and of redraws); drains that yield to drawing run below redraw priority, so GTK paints,
/// takes input and hands WebKit its messages between them.
struct GLibEngineLoop: EngineThread.Loop {
    /// Redraws (GDK_PRIORITY_REDRAW) run at 120 and WebKit dispatches its IPC at 100: a source below both.
    private static let yieldingPriority: Int32 = 121

    // GMainContext's attach and wake-up functions are documented thread-safe.
    nonisolated(unsafe) let context: OpaquePointer

    private final class DrainRequest {
        let lane: EngineThread.Lane
        init(_ lane: EngineThread.Lane) { self.lane = lane }
    }

    func schedule(_ drain: EngineThread.Drain) {
        let source = g_idle_source_new()
        g_source_set_priority(source, drain.yieldsToDrawing ? Self.yieldingPriority : G_PRIORITY_DEFAULT)
        g_source_set_callback(
            source,
            { data in
                guard let data else { return 0 }
                EngineThread.shared.drain(Unmanaged<DrainRequest>.fromOpaque(data).takeUnretainedValue().lane)
                // Each drain schedules the next one itself, at the priority it calls for: this source is done.
                return 0
            }, Unmanaged.passRetained(DrainRequest(drain.lane)).toOpaque(),
            { data in
                guard let data else { return }
                Unmanaged<DrainRequest>.fromOpaque(data).release()
            })
        g_source_attach(source, context)
        g_source_unref(source)
    }
}
#endif
