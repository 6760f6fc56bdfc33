#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
/// One measured figure next to the baseline measured in the same run.
public struct BenchFigure: Codable, Sendable {
    public enum Better: String, Codable, Sendable { case lower, higher }

    public let scenario: String
    public let figure: String
    public let value: Double
    public let unit: String
    public let baselineName: String
    public let baseline: Double
    /// value ÷ baseline.
    public let ratio: Double
    public let better: Better
    /// The target on the ratio, e.g. "≤ 1.15" (nil when the figure has none).
    public let target: String?
    public let targetMet: Bool?

    public init(
        scenario: String, figure: String, value: Double, unit: String, baselineName: String, baseline: Double,
        better: Better, targetRatio: Double? = nil
    ) {
        self.scenario = scenario
        self.figure = figure
        self.value = value
        self.unit = unit
        self.baselineName = baselineName
        self.baseline = baseline
        self.ratio = baseline == 0 ? 0 : value / baseline
        self.better = better
        if let targetRatio {
            target = "\(better == .lower ? "≤" : "≥") \(targetRatio)"
            targetMet = better == .lower ? ratio <= targetRatio : ratio >= targetRatio
        } else {
            target = nil
            targetMet = nil
        }
    }
}
#endif
