#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import Logging
import Synchronization

/// Runs GTK on the engine thread: hands that thread to GLib's default main context for the life of the process,
/// plus the headless set-up (environment, a virtual display when there is none) and `gtk_init`.
///
/// The loop runs from first use, so ``GTKActor`` code can always be scheduled; ``start(_:)`` must succeed
/// before any web view is created. It is idempotent, thread-safe, and may be called on the GTK thread.
public final class GTKRuntime: Sendable {
    public static let shared = GTKRuntime()

    /// The engine thread, GTK's thread once started: the executor of ``GTKActor``.
    public var executor: EngineThread { .shared }
    private let outcome = Mutex<Result<Void, GTKRuntimeError>?>(nil)
    private let display = Mutex<VirtualDisplay?>(nil)
    private let logger = Logger(label: "hybrid.gtk")
    /// The loop GTK's thread runs; quit only by ``shutDown()``. A GMainLoop is thread-safe to quit.
    private nonisolated(unsafe) let loop: OpaquePointer
    /// Signalled when GTK's thread has left its loop.
    private let loopEnded = DispatchSemaphore(value: 0)

    private init() {
        let context: OpaquePointer = g_main_context_default()
        // GLib allocates or aborts; it never returns NULL here.
        let loop = UncheckedLoop(loop: g_main_loop_new(context, 0).unsafelyUnwrapped)
        self.loop = loop.loop
        let ended = loopEnded
        // The engine thread, not a thread of GTK's own: the core's engine-isolated code and GTK's must share one
        // thread for the compiler's isolation to mean what it says. The thread is parked, never ended, once the
        // loop is quit: WebKit treats it as its main thread, and ending it runs WebKit's and GLib's per-thread
        // destructors while WebKit's own threads still work, which corrupted the heap in about one exit in ten
        // after a shutdown.
        EngineThread.shared.handOver(to: GLibEngineLoop(context: context)) {
            g_main_loop_run(loop.loop)
            ended.signal()
        }
    }

    /// Prepares the display and initialises GTK. Later calls return the first call's outcome, whatever
    /// options they pass.
    ///
    /// With the default options the runtime changes nothing about the process: it needs a display (`DISPLAY`),
    /// and WebKit keeps its sandbox and hardware rendering. Machines without a display or GPU (CI, tests, the
    /// demo) opt into ``Options/headless``.
    public func start(_ options: Options = Options()) throws(GTKRuntimeError) {
        if let outcome = outcome.withLock({ $0 }) { return try outcome.get() }
        if executor.isCurrent { return try startOnItsThread(options).get() }
        // Launching needs GTK's thread (gtk_init runs there), so it always happens there: a caller elsewhere waits
        // for it holding no lock. Launching from the calling thread under a lock deadlocked when a job on GTK's
        // thread called start() at the same moment: it waited for the lock, the launch waited for GTK's thread.
        let launched = Mutex<Result<Void, GTKRuntimeError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task { @GTKActor in
            let result = self.startOnItsThread(options)
            launched.withLock { $0 = result }
            done.signal()
        }
        // A shutdown that quits the loop before the launch ran would leave nobody to signal.
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if case .failure(.shutDown)? = outcome.withLock({ $0 }) { throw .shutDown }
        }
        try launched.withLock { $0 ?? .failure(.shutDown) }.get()
    }

    /// Runs on GTK's thread only, so launches never overlap and never wait for another thread.
    private func startOnItsThread(_ options: Options) -> Result<Void, GTKRuntimeError> {
        if let outcome = outcome.withLock({ $0 }) { return outcome }
        let started = Result { () throws(GTKRuntimeError) in try launch(options) }
        return outcome.withLock { outcome in
            // A shutdown that came in meanwhile wins.
            if let outcome { return outcome }
            outcome = started
            return started
        }
    }

    /// Stops GTK for the rest of the process, for hosts that want an orderly end before they exit: GTK's thread
    /// leaves its loop and this returns once it has, so no GTK or WebKit callback runs afterwards. Close every container and web view first. Afterwards ``start(_:)`` throws
    /// ``GTKRuntimeError/shutDown`` and work sent to ``GTKActor`` never runs. Idempotent; call it from any thread
    /// but GTK's own.
    ///
    /// Exiting without it is fine too: the process's exit status and output stay its own, and an Xvfb the runtime
    /// started ends once the process's connection closes.
    public func shutDown() {
        precondition(!executor.isCurrent, "GTKRuntime.shutDown() waits for GTK's thread: call it elsewhere")
        let wasRunning = outcome.withLock { outcome -> Bool in
            defer { outcome = .failure(.shutDown) }
            if case .failure(.shutDown) = outcome { return false }
            return true
        }
        guard wasRunning else { return }
        // Quitting is thread-safe. The display connection stays open, unread: an Xvfb the runtime started
        // (`-terminate`) ends once the process and WebKit's processes have gone, as it does without a shutdown.
        g_main_loop_quit(loop)
        loopEnded.wait()
    }

    /// The X display in use, such as `:99`.
    public var displayName: String? { getenv("DISPLAY").map { String(cString: $0) } }

    private func launch(_ options: Options) throws(GTKRuntimeError) {
        HeadlessEnvironment.apply(options)
        // Streamed scheme responses write into pipes whose reader may go away; that must be an error, not a kill.
        signal(SIGPIPE, SIG_IGN)
        if getenv("DISPLAY") == nil {
            guard options.startsVirtualDisplay else {
                throw .noDisplay(
                    "DISPLAY is not set. Run under a desktop session or `xvfb-run`, or start the runtime with "
                        + "`GTKRuntime.shared.start(.headless)` to have it start Xvfb itself")
            }
            let virtual = try VirtualDisplay.start(logger: logger)
            setenv("DISPLAY", virtual.name, 1)
            display.withLock { $0 = virtual }
            // No stop at exit: Xvfb runs with `-terminate` and ends when this process's connection closes, which
            // the kernel does after the process is gone. Stopping it from an `atexit` handler raced GTK's thread,
            // which still watches the display: GDK's X I/O error handler then called `_exit(1)`, replacing the
            // app's exit status and dropping unflushed standard output.
        }
        guard initialiseGTKOnItsThread() else {
            // No client ever connected, so `-terminate` would never end this Xvfb.
            display.withLock { $0?.stop() }
            throw .gtkInitFailed(display: displayName ?? "")
        }
    }

    /// A GMainLoop, safe to quit from any thread.
    private struct UncheckedLoop: @unchecked Sendable { let loop: OpaquePointer }

    /// `gtk_init_check` must run on the thread that will run GTK: ``start(_:)`` launches there.
    private func initialiseGTKOnItsThread() -> Bool {
        executor.checkIsolated()
        return gtk_init_check(nil, nil) != 0
    }
}
#endif
