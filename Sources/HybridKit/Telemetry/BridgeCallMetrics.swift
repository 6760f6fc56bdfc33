import Metrics

/// The bridge's swift-metrics handles, made once per dimension set: creating a metric asks the global factory
/// under a lock, which a hot path should not do per call. Owned by one ``BridgeEngine`` (actor-isolated).
struct BridgeCallMetrics {
    private var counters: [String: Counter] = [:]
    private var timers: [String: Timer] = [:]
    private var refusals: [BridgeError.Code: Counter] = [:]

    /// A call that was answered with `outcome` (`ok` or an error code), `started` when it arrived.
    mutating func answered(module: String, outcome: String, started: ContinuousClock.Instant) {
        let key = module + "\u{0}" + outcome
        let counter =
            counters[key]
            ?? Counter(label: HybridMetrics.bridgeCalls, dimensions: [("module", module), ("outcome", outcome)])
        counters[key] = counter
        counter.increment()
        let timer = timers[module] ?? Timer(label: HybridMetrics.bridgeCallDuration, dimensions: [("module", module)])
        timers[module] = timer
        timer.recordInterval(since: started)
    }

    mutating func refused(_ code: BridgeError.Code) {
        let counter =
            refusals[code] ?? Counter(label: HybridMetrics.bridgeRefused, dimensions: [("code", code.rawValue)])
        refusals[code] = counter
        counter.increment()
    }
}

extension Timer {
    /// Records the time elapsed since `start` on the continuous clock.
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let (seconds, attoseconds) = elapsed.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
