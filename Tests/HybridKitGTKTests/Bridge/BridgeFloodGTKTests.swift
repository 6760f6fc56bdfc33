#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridBench
import HybridKit
import HybridKitGTK
import Testing

/// A flood of 100,000 calls in the real engine: every call settles (answered, or refused by the pending-call
/// cap), and the other view keeps being answered while it lasts. How long the loop may stall is a figure for
/// `hybrid bench flood`, against an idle loop measured in the same run, not for a test: the whole suite runs
/// beside this one on the same GTK loop and would be measured with it. The bound per turn is checked exactly
/// by `BridgeEngineTests.aFloodIsHandledOverSeveralTurns`.
@Suite(.serialized) struct BridgeFloodGTKTests {
    @Test @GTKActor func aFloodSettlesAndTheOtherViewIsAnswered() async throws {
        var options = FloodBenchmark.Options()
        options.calls = 100_000
        options.idle = .milliseconds(500)
        // FloodBenchmark.run throws unless every call settled and only the pending-call cap refused any.
        let figures = try await FloodBenchmark.run(options)
        let settled = try #require(figures.first { $0.figure.hasPrefix("flood settled") })
        #expect(settled.value > 0)
        // Whether the pending-call cap refuses any depends on how fast the asynchronous calls answer; the cap
        // itself is checked exactly by `BridgeEngineTests.callsPastThePendingCapAreRefused`.
        let wait = try #require(figures.first { $0.figure.hasPrefix("another view's longest wait") })
        #expect(wait.value > 0, "the other view was answered during the flood")
    }
}
#endif
