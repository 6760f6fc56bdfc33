/// What a pool has done, for tests, benchmarks and telemetry.
public struct PoolStatistics: Sendable, Equatable {
    public var created = 0
    /// Views handed out warm.
    public var handedOut = 0
    /// Views reset and put back.
    public var reused = 0
    /// Views closed instead of reused, by reason.
    public var discarded: [String: Int] = [:]
    /// Views closed by ``WebViewPool/drain()``.
    public var drained = 0
}
