import Foundation
import HybridGTK
import HybridTour
import Testing

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
    }
}
