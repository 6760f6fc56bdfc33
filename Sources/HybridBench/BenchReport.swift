#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation

/// Prints benchmark figures as a readable table or as JSON lines (one object per figure).
public enum BenchReport {
    public static func json(_ figures: [BenchFigure]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return figures.compactMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
            .joined(separator: "\n")
    }

    public static func table(_ figures: [BenchFigure]) -> String {
        let header = ["scenario", "figure", "value", "baseline (same run)", "ratio", "target"]
        let rows = figures.map { figure in
            [
                figure.scenario, figure.figure, "\(format(figure.value)) \(figure.unit)",
                "\(format(figure.baseline)) \(figure.unit)  \(figure.baselineName)",
                String(format: "%.2f×", figure.ratio),
                figure.target.map { "\($0) \(figure.targetMet == true ? "met" : "MISSED")" } ?? "",
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
        return ([line(header), line(widths.map { String(repeating: "-", count: $0) })] + rows.map(line))
            .joined(separator: "\n")
    }

    static func format(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }
}
#endif
