import Foundation

#if canImport(Darwin)
/// The actor that owns the web engine: WebKit's own, the main actor.
///
/// Hosts on Apple platforms write `@MainActor` code, as they do with WKWebView; the core names this alias so the
/// same source also builds where the engine has a thread of its own (WebKitGTK on Linux).
public typealias EngineActor = MainActor
#else
/// The actor that owns the web engine: its executor is the process's one engine thread (``EngineThread``).
///
/// On Apple platforms this is `MainActor`. Here no engine may run on the main thread, which belongs to the
/// process's entry point (a test runner, a command-line tool), so the engine gets a thread of its own, and an
/// engine with an event loop of its own (WebKitGTK's GLib loop) takes that thread over
/// (``EngineThread/handOver(to:running:)``).
@globalActor
public actor EngineActor {
    public static let shared = EngineActor()

    public nonisolated var unownedExecutor: UnownedSerialExecutor { Self.sharedUnownedExecutor }

    /// The engine thread's executor, as `MainActor.sharedUnownedExecutor` is the main thread's.
    public static var sharedUnownedExecutor: UnownedSerialExecutor { EngineThread.shared.asUnownedSerialExecutor() }

    /// Runs `body` on the engine's actor, as `MainActor.run` does on the main actor.
    @EngineActor
    public static func run<T: Sendable>(
        resultType: T.Type = T.self, body: @EngineActor @Sendable () throws -> T
    ) async rethrows -> T {
        try body()
    }

    /// Runs `body` as engine-isolated code from a synchronous, nonisolated context known to be on the engine
    /// thread, as `MainActor.assumeIsolated` does for the main thread; traps anywhere else. For the C boundary
    /// (a GLib signal handler cannot carry an isolation) and code written against WebKit's `@MainActor` API.
    ///
    /// The compiler does the entering: `EngineEntry`'s conformance is `@preconcurrency`, so its witness thunk checks the
    /// engine thread (``EngineThread/checkIsolated()``) before running the isolated witness (SE-0423). No
    /// isolation is cast away by hand. (`Actor.assumeIsolated` on `EngineActor.shared` would also check, but the
    /// compiler does not treat its `isolated EngineActor` parameter as `@EngineActor`, so `body` could not be
    /// called from it.)
    public static func assumeIsolated<T>(_ body: @EngineActor () throws -> T) rethrows -> T {
        let entry: any EngineEntering = EngineEntry()
        return try entry.enter(body)
    }
}

/// A nonisolated requirement that `EngineEntry` meets on the engine's actor, so that calls through it are checked.
private protocol EngineEntering {
    func enter<T>(_ body: @EngineActor () throws -> T) rethrows -> T
}

@EngineActor
private struct EngineEntry: @preconcurrency EngineEntering {
    nonisolated init() {}
    func enter<T>(_ body: @EngineActor () throws -> T) rethrows -> T { try body() }
}
#endif

extension EngineActor {
    /// Whether the caller runs on the engine's thread, where the actor's jobs run: for the few places that learn
    /// their thread at run time (a deinitializer, a hop that may start anywhere).
    package static var isOnEngineThread: Bool {
        #if canImport(Darwin)
        Thread.isMainThread
        #else
        EngineThread.shared.isCurrent
        #endif
    }
}
