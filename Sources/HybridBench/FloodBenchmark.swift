#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridKitTesting

/// `hybrid bench flood`: what a flood of calls from one view costs every other view of the app.
///
/// One view issues a flood of calls at once; meanwhile a second view pings the bridge sequentially and a
/// ``MainLoopStallProbe`` ticks at redraw priority on the main loop every view shares. The longest gap
/// between probe ticks (no view could paint) and between the second view's answers (no view was answered)
/// are set against the same readings taken while nothing floods, in the same run.
public enum FloodBenchmark {
    public struct Options: Sendable {
        public var calls = 200_000
        public var idle: Duration = .seconds(2)
        public init() {}
    }

    private struct FloodResult: Decodable {
        let ok: Bool
        let settled: Int
        let refused: Int
        let error: String?
    }

    @GTKActor
    public static func run(_ options: Options = Options()) async throws -> [BenchFigure] {
        try GTKRuntime.shared.start(.headless)
        guard let pages = BenchPages.directory, let url = URL(string: "app://bench/bench/flood.html") else {
            throw BenchPages.Failure.missing
        }
        let pings = BridgeBenchmark.ArrivalLog()
        let module = BridgeModule("bench", access: .origins("app://bench")) { module in
            module.method("echo") { (payload: String, _) in payload }
            module.method("echoLater") { (payload: String, _) async in payload }
            module.method("ping") { (_: NoArguments, _) in
                pings.record()
                return true
            }
        }
        var views: [(view: GTKWebView, page: HybridPage)] = []
        defer {
            for (view, page) in views {
                page.close()
                view.close()
            }
        }
        for _ in 0..<2 {
            let view = GTKWebView()
            let page = try HybridPage(engine: view, modules: [module])
            views.append((view, page))
            try view.setSchemeHandler(DirectorySchemeHandler(root: pages), forScheme: "app")
            let loaded = LoadSignal()
            page.delegate = loaded
            try view.load(EngineRequest(url: url))
            await loaded.wait()
        }
        let (flooding, pinging) = (views[0].view, views[1].view)
        let done = BridgeBenchmark.PhaseEnd()
        flooding.addScriptMessageHandler(done, name: "benchDone", replies: false)

        let probe = MainLoopStallProbe()
        defer { probe.stop() }
        pinging.evaluateJavaScriptIgnoringResult("ping()")

        // Baseline: the same readings while nothing floods, once both views have settled (first paints,
        // the first calls' compilation).
        try await Task.sleep(for: .seconds(1))
        probe.reset()
        _ = pings.take()
        let idleStarted = ContinuousClock.now
        try await Task.sleep(for: options.idle)
        let idleLoop = probe.reading.longestGap
        let idlePings = pings.take()
        let idlePing = longestGap(idlePings, from: idleStarted, to: .now)
        let idleRate = Double(idlePings.count) / (options.idle / .seconds(1))

        probe.reset()
        let started = ContinuousClock.now
        let json = await done.wait { flooding.evaluateJavaScriptIgnoringResult("flood(\(options.calls))") }
        let floodTime = ContinuousClock.now - started
        let floodLoop = probe.reading.longestGap
        let floodPing = longestGap(pings.take(), from: started, to: started + floodTime)
        pinging.evaluateJavaScriptIgnoringResult("stopPing()")
        let result = try JSONDecoder().decode(FloodResult.self, from: Data(json.utf8))
        guard result.ok, result.settled == options.calls else {
            throw BridgeBenchmark.BenchError.pageFailed(
                "flood: \(result.settled) of \(options.calls) settled, \(result.refused) refused (\(result.error ?? "-"))"
            )
        }

        let label = "\(options.calls.formatted()) calls at once"
        return [
            BenchFigure(
                scenario: "flood", figure: "longest main-loop stall, \(label)", value: milliseconds(floodLoop),
                unit: "ms", baselineName: "idle loop's longest frame interval", baseline: milliseconds(idleLoop),
                better: .lower, targetRatio: 4),
            BenchFigure(
                scenario: "flood", figure: "another view's longest wait for an answer", value: milliseconds(floodPing),
                unit: "ms", baselineName: "its longest wait, idle", baseline: milliseconds(idlePing), better: .lower),
            BenchFigure(
                scenario: "flood", figure: "flood settled (\(result.refused) refused by the pending-call cap)",
                value: Double(options.calls) / max(floodTime / .seconds(1), 1e-9), unit: "calls/s",
                baselineName: "sequential calls/s (the other view's pings, idle)", baseline: idleRate,
                better: .higher),
        ]
    }

    /// The longest wait between answers within `start`…`end`, the waits before the first answer and after the
    /// last one included: a view that got no answer at all during the flood waited the whole of it.
    static func longestGap(
        _ times: [ContinuousClock.Instant], from start: ContinuousClock.Instant, to end: ContinuousClock.Instant
    ) -> Duration {
        let bounded = [start] + times.filter { $0 > start && $0 < end } + [end]
        return zip(bounded.dropFirst(), bounded).map { $0 - $1 }.max() ?? .zero
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        duration / .milliseconds(1)
    }
}
#endif
