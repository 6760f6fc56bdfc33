/// What a bridge has done, for tests and telemetry.
public struct BridgeStatistics: Sendable, Equatable {
    public var received = 0
    public var refused = 0
    public var calls = 0
    public var succeeded = 0
    public var failed = 0
    /// Calls ended by navigation or close before their method answered.
    public var abandoned = 0
    public var events = 0
    /// Evaluations used to deliver main-frame batches.
    public var evaluations = 0
}
