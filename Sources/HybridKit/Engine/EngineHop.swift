/// Runs a closure on the engine's actor, where every ``SchemeTask`` method must be called.
///
/// Scheme handlers read files and the network on other threads and hop back with this to talk to the task.
/// A plain closure keeps them engine-free and lets unit tests run the body inline. Hops need not run in the
/// order they were made (``EngineExecutorHop/hop(onExecutorOf:)`` starts a `Task` per hop); no handler relies
/// on it.
public typealias EngineHop = @Sendable (@escaping @EngineActor @Sendable () -> Void) -> Void

/// Runs bodies on the engine's actor, so they run on the engine's thread.
@EngineActor
public final class EngineExecutorHop {
    private weak var engine: (any WebEngine)?
    private let holdsEngine: Bool

    /// Runs bodies for as long as the hop exists.
    public nonisolated init() {
        holdsEngine = false
    }

    /// Runs bodies while `engine` lives; later bodies are dropped (its tasks are gone too).
    public nonisolated init(engine: any WebEngine) {
        self.engine = engine
        holdsEngine = true
    }

    public func run(_ body: @EngineActor @Sendable () -> Void) {
        guard !holdsEngine || engine != nil else { return }
        body()
    }

    /// A hop onto the engine's actor, entered from a new task each time; `engine` is held weakly.
    public nonisolated static func hop(onExecutorOf engine: any WebEngine) -> EngineHop {
        let runner = EngineExecutorHop(engine: engine)
        return { body in
            Task { await runner.run(body) }
        }
    }
}
