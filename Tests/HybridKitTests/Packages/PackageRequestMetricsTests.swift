import Foundation
import HybridKit
import Testing

/// The package handler reports each answer to swift-metrics. Other suites in the process count too, so each
/// outcome is checked to have grown by at least what this test caused.
@Suite @EngineActor struct PackageRequestMetricsTests {
    @Test func eachOutcomeIsCounted() async throws {
        let metrics = MetricsSummary.installed()
        let fixture = try OfflineFixture()
        let handler = try fixture.handler()
        try handler.setDegradedPrefixes(["https://shop.example.com/app/js/"])
        func count(_ outcome: String) -> Int64 {
            metrics.total(HybridMetrics.packageRequests, where: [("outcome", outcome)])
        }
        let before = ["hit", "miss", "degraded", "refused"].map(count)

        _ = try await fixture.run(PackageSchemeHandlerTests.base + "index.html", handler: handler)
        _ = try await fixture.run(PackageSchemeHandlerTests.base + "missing.js", handler: handler)
        _ = try await fixture.run(PackageSchemeHandlerTests.base + "js/app.js", handler: handler)
        _ = try await fixture.run("hybrid://169.254.169.254/latest/meta-data", handler: handler)

        let after = ["hit", "miss", "degraded", "refused"].map(count)
        for (outcome, (old, new)) in zip(["hit", "miss", "degraded", "refused"], zip(before, after)) {
            #expect(new >= old + 1, "\(outcome): \(old) → \(new)")
        }
    }
}
