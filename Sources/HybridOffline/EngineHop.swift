import HybridCore

/// Runs a closure on the engine's executor, where every ``SchemeTask`` method must be called.
///
/// The handler reads files and the network on other threads and hops back with this to talk to the task.
/// A plain closure keeps the handler engine-free and lets unit tests run the body inline. Hops need not run in
/// the order they were made (``hop(onExecutorOf:)`` starts a `Task` per hop); the handler never relies on it.
public typealias EngineHop = @Sendable (@escaping @Sendable () -> Void) -> Void

extension PackageSchemeHandler {
    /// A hop onto `engine`'s executor: an actor that runs on that executor, entered from a detached task.
    /// The engine is held weakly; once it is gone, hops are dropped (its tasks are gone too).
    public static func hop(onExecutorOf engine: any WebEngine) -> EngineHop {
        let runner = ExecutorRunner(engine: engine)
        return { body in
            Task { await runner.run(body) }
        }
    }
}

/// An actor whose executor is the engine's, so its methods run on the engine's thread.
private actor ExecutorRunner {
    private nonisolated let executor: UnownedSerialExecutor
    private weak var engine: (any WebEngine)?

    init(engine: any WebEngine) {
        // The executor outlives the engine: it is the engine runtime's (GTK's loop thread, the main actor).
        executor = engine.executor
        self.engine = engine
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor }

    func run(_ body: @Sendable () -> Void) {
        guard engine != nil else { return }
        body()
    }
}
