import Foundation
import HybridKitTesting
import Testing

@testable import HybridKit

@EngineActor
@Suite struct TelemetryTests {
    let engine = FakeEngine()

    @Test func bridgeCallsAreCountedByModuleAndOutcome() async throws {
        // One summary for the whole test process; this test reads only series naming its own module.
        let metrics = MetricsSummary.installed()
        let bridge = try BridgeEngine(
            engine: engine,
            modules: ModuleRegistry([
                BridgeModule("telemetry", access: .anyPage) { module in
                    module.method("echo") { (n: Int, _) in n }
                    module.method("refuse") { (_: NoArguments, _) -> Int in throw BridgeError.denied("no") }
                }
            ]))
        defer { withExtendedLifetime(bridge) {} }
        for id in 1...3 { engine.post(PageMessage.call("telemetry", "echo", id: id, args: "\(id)")) }
        engine.post(PageMessage.call("telemetry", "refuse", id: 4))
        engine.post(PageMessage.call("telemetry", "echo", id: 5, args: #""not a number""#))
        // A module the page made up is counted under "-", never under its own name.
        engine.post(PageMessage.call("made-up-by-the-page", "x", id: 6))

        let calls = HybridMetrics.bridgeCalls
        #expect(metrics.total(calls, where: [("module", "telemetry"), ("outcome", "ok")]) == 3)
        #expect(metrics.total(calls, where: [("module", "telemetry"), ("outcome", "denied")]) == 1)
        #expect(metrics.total(calls, where: [("module", "telemetry"), ("outcome", "bad_arguments")]) == 1)
        #expect(metrics.total(calls, where: [("module", "made-up-by-the-page")]) == 0)
        #expect(metrics.total(calls, where: [("module", "-"), ("outcome", "unknown_module")]) >= 1)
        #expect(
            metrics.lines().contains { $0.hasPrefix("\(HybridMetrics.bridgeCallDuration){module=telemetry} count=5") })
    }
}
