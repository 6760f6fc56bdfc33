/// Runs a closure on the engine's executor, where every ``SchemeTask`` method must be called.
///
/// Scheme handlers read files and the network on other threads and hop back with this to talk to the task.
/// A plain closure keeps them engine-free and lets unit tests run the body inline. Hops need not run in the
/// order they were made (``EngineExecutorHop/hop(onExecutorOf:)`` starts a `Task` per hop); no handler relies
/// on it.
public typealias EngineHop = @Sendable (@escaping @Sendable () -> Void) -> Void

/// An actor whose executor is the engine's, so its methods run on the engine's thread.
public actor EngineExecutorHop {
    private nonisolated let executor: UnownedSerialExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor }
    private weak var engine: (any WebEngine)?
    private let holdsEngine: Bool

    /// Runs on `executor` for as long as the hop exists.
    public init(executor: UnownedSerialExecutor) {
        self.executor = executor
        holdsEngine = false
    }

    /// Runs on `engine`'s executor while `engine` lives; later bodies are dropped (its tasks are gone too).
    public init(engine: any WebEngine) {
        executor = engine.executor
        self.engine = engine
        holdsEngine = true
    }

    public func run(_ body: @Sendable () -> Void) {
        guard !holdsEngine || engine != nil else { return }
        body()
    }

    /// A hop onto `engine`'s executor, entered from a new task each time; `engine` is held weakly.
    public static func hop(onExecutorOf engine: any WebEngine) -> EngineHop {
        let runner = EngineExecutorHop(engine: engine)
        return { body in
            Task { await runner.run(body) }
        }
    }
}
