/// Runs closures on an engine's executor from any async context (engine calls must happen there).
actor EngineExecutorHop {
    private nonisolated let executor: UnownedSerialExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor }

    init(executor: UnownedSerialExecutor) { self.executor = executor }

    func run(_ body: @Sendable () -> Void) { body() }
}
