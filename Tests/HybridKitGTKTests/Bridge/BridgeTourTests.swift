#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK
import Testing

@testable import HybridDemo

/// The demo's tour, run in the real engine: every capability line must pass.
@Suite(.serialized) struct BridgeTourTests {
    @Test func everyCapabilityPasses() async throws {
        let report = try await BridgeTour.run()
        for line in report.lines {
            #expect(line.passed, "\(line.name): \(line.detail)")
        }
        #expect(report.finished)
        let names = Set(report.lines.map(\.name))
        for required in [
            "call before ready is queued, then answered", "promise call returns result", "error: unknown module",
            "error: unknown method", "error: bad arguments", "error: native failure is internal",
            "error: denied origin",
            "error: native timeout", "events reach many listeners, batched", "native calls a page handler",
            "WebViewJavascriptBridge: callHandler", "WebViewJavascriptBridge: registerHandler",
            "forwarding to another module", "same-origin: call", "cross-origin: call",
            "cross-origin: main-frame-only module denied", "cross-origin: event relayed",
            "caller frame and origin verified by the engine", "cross-origin: frame verified",
        ] {
            #expect(names.contains(required), "missing tour line: \(required)")
        }
        // The batching the line claims is counted natively, in this engine: five events and the result in one
        // evaluation.
        let batched = try #require(report.lines.first { $0.name == "events reach many listeners, batched" })
        #expect(
            batched.detail.hasSuffix("5 events and the result in 1 evaluation (counted natively)"), "\(batched.detail)")
    }

    @Test func theBatchedLineFailsWhenEventsLeaveSeparately() {
        let batched = TourModules.TickBatch(emitted: 5, events: 5, evaluations: 1)
        #expect(batched.batched)
        #expect(batched.detail == "5 events and the result in 1 evaluation (counted natively)")
        let separate = TourModules.TickBatch(emitted: 5, events: 5, evaluations: 6)
        #expect(!separate.batched)
        #expect(separate.detail == "not batched: 5 events and the result in 6 evaluations, 5 emitted")
        #expect(!TourModules.TickBatch(emitted: 5, events: 4, evaluations: 1).batched)
        #expect(!TourModules.TickBatch(emitted: 5, events: 5, evaluations: 0).batched)
    }
}
#endif
