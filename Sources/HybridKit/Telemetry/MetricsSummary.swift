import CoreMetrics
import Metrics
import Synchronization

/// An in-process swift-metrics backend that keeps totals, for command-line tools and debug screens:
/// `MetricsSystem.bootstrap(summary)` at start, ``lines()`` at the end. Counters keep their sum, recorders and
/// timers their count, sum and maximum. Production apps bootstrap a real backend instead.
public final class MetricsSummary: MetricsFactory, Sendable {
    private let series = Mutex<[String: Series]>([:])

    public init() {}

    private static let shared = Mutex<MetricsSummary?>(nil)

    /// Bootstraps `MetricsSystem` with a summary the first time it is called and returns that summary ever after.
    /// swift-metrics can be bootstrapped once per process; this lets several callers (a CLI's commands, test
    /// suites in one process) share one backend without racing to install it.
    public static func installed() -> MetricsSummary {
        shared.withLock { installed in
            if let installed { return installed }
            let summary = MetricsSummary()
            MetricsSystem.bootstrap(summary)
            installed = summary
            return summary
        }
    }

    /// One line per metric and dimension set, sorted: `hybrid_bridge_calls{module=demo,outcome=ok} 12`.
    public func lines() -> [String] {
        series.withLock { $0.map { key, series in "\(key) \(series.summary)" } }.sorted()
    }

    /// The total of counter `label` over all dimension sets whose dimensions include `filter`.
    public func total(_ label: String, where filter: [(String, String)] = []) -> Int64 {
        series.withLock { all in
            all.values.filter { $0.label == label && filter.allSatisfy(Self.containing($0.dimensions)) }
                .reduce(0) { $0 + $1.sum }
        }
    }

    /// How many values timer or recorder `label` took, over all dimension sets.
    public func count(_ label: String) -> Int64 {
        series.withLock { all in all.values.filter { $0.label == label }.reduce(0) { $0 + $1.count } }
    }

    private static func containing(_ dimensions: [(String, String)]) -> ((String, String)) -> Bool {
        { wanted in dimensions.contains { $0 == wanted } }
    }

    private func handle(_ label: String, _ dimensions: [(String, String)], _ kind: Series.Kind) -> Handle {
        let key = dimensions.isEmpty ? label : "\(label){\(dimensions.map { "\($0)=\($1)" }.joined(separator: ","))}"
        let series = series.withLock { all in
            if let existing = all[key] { return existing }
            let made = Series(label: label, dimensions: dimensions, kind: kind)
            all[key] = made
            return made
        }
        return Handle(series: series)
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        handle(label, dimensions, .counter)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        handle(label, dimensions, .recorder)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        handle(label, dimensions, .timer)
    }

    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}
}

/// One metric and dimension set's running totals.
private final class Series: Sendable {
    enum Kind { case counter, recorder, timer }

    let label: String
    let dimensions: [(String, String)]
    let kind: Kind
    private let totals = Mutex<(count: Int64, sum: Int64, max: Int64)>((0, 0, 0))

    init(label: String, dimensions: [(String, String)], kind: Kind) {
        self.label = label
        self.dimensions = dimensions
        self.kind = kind
    }

    var sum: Int64 { totals.withLock { $0.sum } }
    var count: Int64 { totals.withLock { $0.count } }

    func add(_ value: Int64) {
        totals.withLock { totals in
            totals.count += 1
            totals.sum &+= value
            totals.max = Swift.max(totals.max, value)
        }
    }

    func reset() { totals.withLock { $0 = (0, 0, 0) } }

    var summary: String {
        let totals = totals.withLock { $0 }
        switch kind {
        case .counter:
            return "\(totals.sum)"
        case .recorder:
            return "count=\(totals.count) sum=\(totals.sum) max=\(totals.max)"
        case .timer:
            guard totals.count > 0 else { return "count=0" }
            let mean = Double(totals.sum) / Double(totals.count) / 1000
            return
                "count=\(totals.count) mean=\(Self.microseconds(mean)) max=\(Self.microseconds(Double(totals.max) / 1000))"
        }
    }

    private static func microseconds(_ value: Double) -> String {
        value >= 1000 ? "\((value / 1000 * 10).rounded() / 10) ms" : "\(Int(value.rounded())) µs"
    }
}

/// The handler object swift-metrics keeps; all kinds write into the same series.
private final class Handle: CounterHandler, RecorderHandler, TimerHandler, Sendable {
    let series: Series

    init(series: Series) { self.series = series }

    func increment(by amount: Int64) { series.add(amount) }
    func reset() { series.reset() }
    func record(_ value: Int64) { series.add(value) }
    func record(_ value: Double) { series.add(Int64(value.rounded())) }
    func recordNanoseconds(_ duration: Int64) { series.add(duration) }
}
