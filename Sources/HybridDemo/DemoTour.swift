#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK

/// `hybrid demo`: the bridge tour page, then each container capability driven from native code; one line per
/// capability, in the order they ran.
public enum DemoTour {
    @GTKActor
    public static func run(
        page: String = BridgeTour.defaultPage, screenshot: Bool = false, timeout: Duration = .seconds(60),
        onLine: @escaping @Sendable (TourLine) -> Void = { _ in }
    ) async throws -> BridgeTour.Report {
        let bridge = try await BridgeTour.run(page: page, screenshot: screenshot, timeout: timeout, onLine: onLine)
        var lines = bridge.lines
        await ContainerTour.run { line in
            lines.append(line)
            onLine(line)
        }
        return BridgeTour.Report(lines: lines, end: bridge.end, screenshot: bridge.screenshot)
    }
}
#endif
