import CWebKitGTK
import Foundation
import Logging
import Synchronization

/// Owns GTK's thread: a thread that iterates GLib's default main context for the life of the process,
/// plus the headless set-up (environment, a virtual display when there is none) and `gtk_init`.
///
/// The loop runs from first use, so ``GTKActor`` code can always be scheduled; ``start(_:)`` must succeed
/// before any web view is created. It is idempotent, thread-safe, and may be called on the GTK thread.
public final class GTKRuntime: Sendable {
    public static let shared = GTKRuntime()

    /// Runs jobs on GTK's thread; the executor of ``GTKActor``.
    public let executor: GLibMainContextExecutor
    private let outcome = Mutex<Result<Void, GTKRuntimeError>?>(nil)
    private let display = Mutex<VirtualDisplay?>(nil)
    private let logger = Logger(label: "hybrid.gtk")

    private init() {
        executor = GLibMainContextExecutor(context: g_main_context_default())
        let thread = Thread {
            let loop = g_main_loop_new(g_main_context_default(), 0)
            g_main_loop_run(loop)
        }
        thread.name = "gtk"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Prepares the display and initialises GTK. Later calls return the first call's outcome, whatever
    /// options they pass.
    ///
    /// With the default options the runtime changes nothing about the process: it needs a display (`DISPLAY`),
    /// and WebKit keeps its sandbox and hardware rendering. Machines without a display or GPU (CI, tests, the
    /// demo) opt into ``Options/headless``.
    public func start(_ options: Options = Options()) throws(GTKRuntimeError) {
        let result = outcome.withLock { outcome in
            if let outcome { return outcome }
            let started = Result { () throws(GTKRuntimeError) in try launch(options) }
            outcome = started
            return started
        }
        try result.get()
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

    /// `gtk_init_check` must run on the thread that will run GTK.
    private func initialiseGTKOnItsThread() -> Bool {
        if executor.isOnExecutorThread { return gtk_init_check(nil, nil) != 0 }
        let initialised = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        Task { @GTKActor in
            let ok = gtk_init_check(nil, nil) != 0
            initialised.withLock { $0 = ok }
            done.signal()
        }
        done.wait()
        return initialised.withLock { $0 }
    }
}
