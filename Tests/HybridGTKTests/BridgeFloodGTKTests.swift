import Foundation
import HybridCore
import HybridGTK
import HybridTour
import Testing

/// A page that issues a flood of calls does not freeze the other views: GTK's main loop, which every web view
/// shares, keeps reaching redraws while the flood is handled, and the pending-call cap holds. The figure itself
/// (and its target against an idle loop) is `hybrid bench flood`'s, and the bound per turn is checked exactly
/// by `BridgeEngineTests.aFloodIsHandledOverSeveralTurns`; this test holds the guarantee in the real engine
/// with a margin wide enough for the whole suite running beside it (every suite shares the loop): 2.5 s, where
/// a 200,000-call flood alone stalled it for 3–5 s before the bridge bounded its work per turn (about 70 ms
/// now).
@Suite(.serialized) struct BridgeFloodGTKTests {
    @Test @GTKActor func aFloodLeavesTheLoopTurning() async throws {
        var options = FloodBenchmark.Options()
        options.calls = 100_000
        options.idle = .milliseconds(500)
        let figures = try await FloodBenchmark.run(options)
        let stall = try #require(figures.first { $0.figure.hasPrefix("longest main-loop stall") })
        let wait = try #require(figures.first { $0.figure.hasPrefix("another view's longest wait") })
        #expect(stall.value < 2500, "the main loop stalled for \(stall.value) ms")
        #expect(wait.value < 2500, "another view waited \(wait.value) ms for an answer")
        let settled = try #require(figures.first { $0.figure.hasPrefix("flood settled") })
        #expect(settled.value > 0)
    }
}
