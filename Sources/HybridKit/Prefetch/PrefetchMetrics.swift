import Metrics

/// Prefetch outcomes as ``HybridMetrics/prefetches`` counters, and the time saved as a
/// ``HybridMetrics/prefetchSaved`` timer.
struct PrefetchMetrics: Sendable {
    enum Outcome: String, CaseIterable, Sendable {
        /// A prefetch was sent.
        case started
        /// A page's request was answered from a prefetch.
        case hit
        /// A page's request that could have been answered (stamped by the page's main frame) went to the network.
        case miss
        /// A prefetch was thrown away unclaimed (expired, too large, cookies changed, page closed).
        case waste
        /// A claimed prefetch failed or was too slow before its head: the page's request went to the network.
        case fallback
        /// A declaration or a filled-in request was refused.
        case refused
        /// A message to network pages' prefetch handler was refused: another frame or origin sent it, or it was
        /// forged or malformed (``PrefetchMessageRefusal``).
        case denied
    }

    private let counters: [Outcome: Counter]
    private let saved = Timer(label: HybridMetrics.prefetchSaved)

    init() {
        var counters: [Outcome: Counter] = [:]
        for outcome in Outcome.allCases {
            counters[outcome] = Counter(label: HybridMetrics.prefetches, dimensions: [("outcome", outcome.rawValue)])
        }
        self.counters = counters
    }

    func count(_ outcome: Outcome) { counters[outcome]?.increment() }

    func recordSaved(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        saved.recordNanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
