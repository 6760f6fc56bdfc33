import Foundation
import HybridKitTesting
import Testing

@testable import HybridKit

@EngineActor
struct NavigationPolicyMetricsTests {
    @Test func decisionsAreCountedByOutcome() throws {
        // One summary for the whole test process, shared with tests that run alongside: compare deltas.
        let metrics = MetricsSummary.installed()
        let label = HybridMetrics.navigationPolicy
        let external = metrics.total(label, where: [("outcome", "external")])
        let blocked = metrics.total(label, where: [("outcome", "blocked")])
        let policy = NavigationPolicyController(engine: FakeEngine())
        for text in ["tel:1", "sms:2", "file:///etc/hosts"] {
            _ = policy.decidePolicy(for: NavigationAction(request: EngineRequest(url: try #require(URL(string: text)))))
        }
        #expect(metrics.total(label, where: [("outcome", "external")]) >= external + 2)
        #expect(metrics.total(label, where: [("outcome", "blocked")]) >= blocked + 1)
    }
}
