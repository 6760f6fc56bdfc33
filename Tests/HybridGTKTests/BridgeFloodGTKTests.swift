import Foundation
import HybridCore
import HybridGTK
import HybridTour
import Testing

/// A page that issues a flood of calls does not freeze the other views: GTK's main loop, which every web view
/// shares, keeps reaching redraws while the flood is handled. The figure itself (and its target against an
/// idle loop) is `hybrid bench flood`'s; this test holds the guarantee with a wide margin: a bound of 1 s
/// where the loop stalled for seconds before the bridge bounded its work per turn (about 70 ms now).
@Suite(.serialized) struct BridgeFloodGTKTests {
    @Test @GTKActor func aFloodLeavesTheLoopTurning() async throws {
        var options = FloodBenchmark.Options()
        options.calls = 100_000
        options.idle = .milliseconds(500)
        let figures = try await FloodBenchmark.run(options)
        let stall = try #require(figures.first { $0.figure.hasPrefix("longest main-loop stall") })
        let wait = try #require(figures.first { $0.figure.hasPrefix("another view's longest wait") })
        #expect(stall.value < 1000, "the main loop stalled for \(stall.value) ms")
        #expect(wait.value < 1000, "another view waited \(wait.value) ms for an answer")
    }
}
