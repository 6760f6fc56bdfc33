import Foundation
import HybridCore
import HybridGTK

/// `hybrid bench bridge`: bridge round trips against a bare `postMessage` → `evaluate_javascript` echo,
/// measured in the same page of the same engine, interleaved.
public enum BridgeBenchmark {
    public struct Options: Sendable {
        public var calls = 2000
        public var inFlight = 1000
        public var largeCalls = 100
        public var largeInFlight = 50
        public var sizes = [100, 1 << 20]
        public init() {}
    }

    public enum BenchError: Error, CustomStringConvertible {
        case pageFailed(String)
        case timedOut
        public var description: String {
            switch self {
            case .pageFailed(let why): "the benchmark page failed: \(why)"
            case .timedOut: "the benchmark page did not finish in time"
            }
        }
    }

    /// The baseline: echo a page's message with one evaluation, doing nothing else.
    final class BareEcho: ScriptMessageHandler, @unchecked Sendable {
        // Set once before the page loads; used on the engine's executor.
        weak var engine: (any WebEngine)?
        private let encoder = JSONEncoder()

        func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
            guard case .string(let text) = message.body, let colon = text.firstIndex(of: ":"),
                let quoted = try? encoder.encode(String(text[text.index(after: colon)...]))
            else { return }
            engine?.evaluateJavaScriptIgnoringResult("__bareEcho(\(text[..<colon]),\(String(decoding: quoted, as: UTF8.self)))")
        }
    }

    private struct PageResult: Decodable {
        struct Latency: Decodable { let p50: Double; let p99: Double }
        struct Rate: Decodable { let perSecond: Double }
        struct Size: Decodable {
            let bare: Latency
            let bridge: Latency
            let bareFlight: Rate
            let bridgeFlight: Rate
        }
        let ok: Bool
        let error: String?
        let results: [String: Size]?
    }

    @GTKActor
    public static func run(_ options: Options = Options()) async throws -> [BenchFigure] {
        try GTKRuntime.shared.start()
        guard let pages = TourPages.directory, let url = URL(string: "app://bench/bench/bridge.html") else {
            throw BridgeTour.TourError.pagesMissing
        }
        let view = GTKWebView()
        defer { view.close() }
        let echo = BareEcho()
        echo.engine = view
        view.addScriptMessageHandler(echo, name: "benchEcho", replies: false)
        var configuration = BridgeConfiguration()
        configuration.limits.maxMessageBytes = 64 << 20
        let page = try HybridPage(
            engine: view,
            modules: [
                BridgeModule("bench", access: .origins("app://bench")) { module in
                    module.method("echo") { (payload: String, _) in payload }
                }
            ], configuration: configuration)
        defer { page.close() }
        try view.setSchemeHandler(DirectorySchemeHandler(root: pages), forScheme: "app")
        let loaded = LoadSignal()
        page.delegate = loaded
        view.load(EngineRequest(url: url))
        await loaded.wait()

        let optionsJSON =
            #"{"calls":\#(options.calls),"inFlight":\#(options.inFlight),"largeCalls":\#(options.largeCalls),"#
            + #""largeInFlight":\#(options.largeInFlight),"sizes":[\#(options.sizes.map(String.init).joined(separator: ","))]}"#
        view.evaluateJavaScriptIgnoringResult("runBench(\(optionsJSON))")
        let result = try await poll(view)
        guard result.ok, let sizes = result.results else { throw BenchError.pageFailed(result.error ?? "unknown") }

        var figures: [BenchFigure] = []
        for size in options.sizes {
            guard let measured = sizes[String(size)] else { continue }
            let label = size >= 1 << 20 ? "\(size >> 20) MB" : "\(size) B"
            let floor = 1_000_000 / measured.bare.p50
            figures += [
                BenchFigure(
                    scenario: "bridge", figure: "sequential p50, \(label)", value: measured.bridge.p50, unit: "µs",
                    baselineName: "bare echo p50", baseline: measured.bare.p50, better: .lower,
                    targetRatio: size < 1 << 20 ? 1.15 : nil),
                BenchFigure(
                    scenario: "bridge", figure: "sequential p99, \(label)", value: measured.bridge.p99, unit: "µs",
                    baselineName: "bare echo p99", baseline: measured.bare.p99, better: .lower),
                BenchFigure(
                    scenario: "bridge", figure: "in flight (\(size < 1 << 20 ? options.inFlight : options.largeInFlight)), \(label)",
                    value: measured.bridgeFlight.perSecond, unit: "calls/s", baselineName: "sequential floor (1/bare p50)",
                    baseline: floor, better: .higher, targetRatio: size < 1 << 20 ? 5 : nil),
                BenchFigure(
                    scenario: "bridge", figure: "in flight bare echo, \(label)", value: measured.bareFlight.perSecond,
                    unit: "calls/s", baselineName: "sequential floor (1/bare p50)", baseline: floor, better: .higher),
            ]
        }
        return figures
    }

    @GTKActor
    private static func poll(_ view: GTKWebView) async throws -> PageResult {
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            if let json = try await view.evaluateJavaScript("window.benchResult"), json != "null",
                let result = try? JSONDecoder().decode(PageResult.self, from: Data(json.utf8))
            {
                return result
            }
        }
        throw BenchError.timedOut
    }
}

/// Resumes a waiter when the main frame finishes loading.
final class LoadSignal: NavigationDelegate, @unchecked Sendable {
    // Used on the engine's executor only.
    private var finished = false
    private var waiter: CheckedContinuation<Void, Never>?

    func didFinishNavigation(to url: URL?) {
        finished = true
        waiter?.resume()
        waiter = nil
    }

    @GTKActor func wait() async {
        if finished { return }
        await withCheckedContinuation { waiter = $0 }
    }
}
