import Metrics

/// How the package handler answered requests, as ``HybridMetrics/packageRequests`` counters. Made once per
/// handler so serving a file never asks the metrics factory (a lock) for a handle.
struct PackageRequestMetrics: Sendable {
    enum Outcome: String, CaseIterable, Sendable {
        case hit, miss, degraded, refused, redirected
    }

    private let counters: [Outcome: Counter]

    init() {
        var counters: [Outcome: Counter] = [:]
        for outcome in Outcome.allCases {
            counters[outcome] = Counter(
                label: HybridMetrics.packageRequests, dimensions: [("outcome", outcome.rawValue)])
        }
        self.counters = counters
    }

    func count(_ outcome: Outcome) {
        counters[outcome]?.increment()
    }
}
