#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridBench
import HybridKitGTK
import Testing

/// `hybrid bench bridge`, small: every figure is timed natively.
@Suite(.serialized) struct BridgeBenchmarkTests {
    @Test func inFlightFiguresAreTimedNativelyNotWithThePagesMillisecondClock() async throws {
        var options = BridgeBenchmark.Options()
        options.calls = 100
        options.inFlight = 200
        options.rounds = 3
        options.sizes = [100]
        options.binarySize = 1 << 20
        options.binaryTransfers = 1
        options.binaryBlocks = 1
        let figures = try await BridgeBenchmark.run(options)
        let inFlight = figures.filter { $0.figure.contains("in flight") }
        #expect(inFlight.count == 3)
        for figure in inFlight {
            #expect(figure.value.isFinite && figure.value > 0, "\(figure.figure): \(figure.value)")
            // 200 calls at `value` per second took this long. The page's clock is coarsened to 1 ms, so a
            // figure it timed is 200 calls in a whole number of milliseconds; a native one practically never is.
            let milliseconds = 200 * 1000 / figure.value
            #expect(
                abs(milliseconds - milliseconds.rounded()) > 1e-6,
                "\(figure.figure): \(figure.value) calls/s is 200 calls in exactly \(milliseconds) ms")
        }
        // The binary figures, each against a baseline measured in the same run, and the heap against the payload.
        let binary = figures.filter { $0.figure.hasPrefix("binary") }
        #expect(binary.count == 4)
        for figure in binary {
            #expect(figure.value > 0 && figure.baseline > 0 && figure.targetMet != nil, "\(figure.figure)")
        }
    }
}
#endif
