#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridKitTesting
import HybridTestServers
import Synchronization

/// `hybrid bench bridge`: bridge round trips against a bare `postMessage` → `evaluate_javascript` echo,
/// measured in the same page of the same engine, interleaved.
///
/// Everything is timed natively (the page's clock is coarsened to 1 ms). Sequential round trips: in a
/// sequential loop the page posts call *i + 1* as soon as the answer to call *i* arrives, so the time between
/// two arrivals is one full round trip. Many calls in flight: from the evaluation that starts a round to the
/// arrival of the page's message that every answer is in.
public enum BridgeBenchmark {
    public struct Options: Sendable {
        public var calls = 2000
        public var inFlight = 1000
        public var largeCalls = 60
        public var largeInFlight = 50
        public var rounds = 5
        public var sizes = [100, 1 << 20]
        /// Synchronous round trips (100-byte echo), interleaved with asynchronous ones.
        public var syncCalls = 1000
        /// Elements of the streamed-results figure, against as many separate calls.
        public var streamElements = 10_000
        /// Batches of at least this many bytes go to the page as a function's argument rather than evaluated
        /// (``BridgeConfiguration/functionCallThreshold``); the bridge's default unless set.
        public var functionCallThreshold = BridgeConfiguration.defaultFunctionCallThreshold
        /// The binary figures' payload, and how many transfers each timed phase makes (alternated in blocks); a
        /// size of 0 leaves them out.
        public var binarySize = 10 << 20
        public var binaryTransfers = 4
        public var binaryBlocks = 6
        public init() {}
    }

    public enum BenchError: Error, CustomStringConvertible {
        case pageFailed(String)
        public var description: String {
            switch self {
            case .pageFailed(let why): "the benchmark page failed: \(why)"
            }
        }
    }

    /// Arrival times of the messages of one kind.
    final class ArrivalLog: Sendable {
        private let times = Mutex<[ContinuousClock.Instant]>([])
        func record() { times.withLock { $0.append(.now) } }
        func take() -> [ContinuousClock.Instant] {
            times.withLock { times in
                let taken = times
                times.removeAll(keepingCapacity: true)
                return taken
            }
        }
    }

    /// The baseline: answer a page's message with one evaluation, doing nothing else.
    final class BareEcho: ScriptMessageHandler {
        weak var engine: (any WebEngine)?
        let arrivals = ArrivalLog()
        private let encoder = JSONEncoder()

        func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
            arrivals.record()
            guard case .string(let text) = message.body, let colon = text.firstIndex(of: ":"),
                let quoted = try? encoder.encode(String(text[text.index(after: colon)...]))
            else { return }
            engine?.evaluateJavaScriptIgnoringResult(
                "__bareEcho(\(text[..<colon]),\(String(decoding: quoted, as: UTF8.self)))")
        }
    }

    /// Hears the page say a phase is over, and when (natively).
    final class PhaseEnd: ScriptMessageHandler, Sendable {
        typealias Arrival = (text: String, arrived: ContinuousClock.Instant)
        private let waiter = Mutex<CheckedContinuation<Arrival, Never>?>(nil)
        func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
            let arrived = ContinuousClock.now
            guard case .string(let text) = message.body else { return }
            waiter.withLock { $0.take() }?.resume(returning: (text, arrived))
        }
        @GTKActor func wait(starting start: () -> Void) async -> String {
            await waitTimed(starting: start).text
        }
        /// The page's message and the native time it arrived.
        @GTKActor func waitTimed(starting start: () -> Void) async -> Arrival {
            await withCheckedContinuation { continuation in
                waiter.withLock { $0 = continuation }
                start()
            }
        }
    }

    private struct PhaseResult: Decodable {
        let ok: Bool
        let error: String?
    }

    @GTKActor
    public static func run(_ options: Options = Options()) async throws -> [BenchFigure] {
        try GTKRuntime.shared.start(.headless)
        guard let pages = BenchPages.directory, let url = URL(string: "app://bench/bench/bridge.html") else {
            throw BenchPages.Failure.missing
        }
        let view = GTKWebView()
        defer { view.close() }
        let echo = BareEcho()
        echo.engine = view
        let end = PhaseEnd()
        view.addScriptMessageHandler(echo, name: "benchEcho", replies: false)
        view.addScriptMessageHandler(end, name: "benchDone", replies: false)
        let bridgeArrivals = ArrivalLog()
        // The bytes both binary sides move: the bridge answers with them, the baseline's handler serves them.
        let payload = Data(repeating: 0x5A, count: max(0, options.binarySize))
        var configuration = BridgeConfiguration()
        configuration.limits.maxMessageBytes = 64 << 20
        configuration.functionCallThreshold = options.functionCallThreshold
        let page = try HybridPage(
            engine: view,
            modules: [
                BridgeModule("bench", access: .origins("app://bench")) { module in
                    module.method("echo", synchronous: true) { (payload: String, _) in
                        bridgeArrivals.record()
                        return payload
                    }
                    // One element per call, against the same elements as one stream.
                    module.method("item") { (size: Int, _) in String(repeating: "x", count: max(0, min(size, 1 << 16)))
                    }
                    // Binary values: bytes as a result, and bytes as an argument (answered with their count).
                    module.method("bytes") { (size: Int, _) in size == payload.count ? payload : payload.prefix(size) }
                    module.method("take") { (data: Data, _) in data.count }
                    module.stream("items") { (request: [Int], _) in
                        let (count, size) = (request.first ?? 0, request.dropFirst().first ?? 0)
                        let item = String(repeating: "x", count: max(0, min(size, 1 << 16)))
                        let next = Mutex(0)
                        return AsyncStream<String>(unfolding: {
                            next.withLock { sent in
                                guard sent < count else { return nil }
                                sent += 1
                                return item
                            }
                        })
                    }
                }
            ], configuration: configuration)
        defer { page.close() }
        try view.setSchemeHandler(DirectorySchemeHandler(root: pages), forScheme: "app")
        try view.setSchemeHandler(
            BridgeBytesBenchmark.BytesHandler(payload: payload), forScheme: BridgeBytesBenchmark.scheme)
        let sink = try await LoopbackServer.start(serving: pages) { BodySink.addRoute(to: $0) }
        defer { sink.stop() }
        let loaded = LoadSignal()
        page.delegate = loaded
        try view.load(EngineRequest(url: url))
        await loaded.wait()

        /// Runs one phase; returns how long it took natively, from just before the evaluation that starts it
        /// to the arrival of the page's message that it is over.
        func phase(_ kind: String, size: Int, count: Int) async throws -> Duration {
            var started = ContinuousClock.now
            let (json, arrived) = await end.waitTimed {
                started = .now
                view.evaluateJavaScriptIgnoringResult("runPhase('\(kind)', \(size), \(count))")
            }
            let result = try JSONDecoder().decode(PhaseResult.self, from: Data(json.utf8))
            guard result.ok else { throw BenchError.pageFailed(result.error ?? "unknown") }
            return arrived - started
        }
        func roundTrips(_ log: ArrivalLog, _ kind: String, size: Int, count: Int) async throws -> [Double] {
            _ = log.take()
            _ = try await phase(kind, size: size, count: count + 1)
            let times = log.take()
            return zip(times.dropFirst(), times).map { later, earlier in microseconds(later - earlier) }
        }
        /// Calls per second with `count` in flight: the median over the rounds, each timed natively.
        func inFlight(_ kind: String, size: Int, count: Int) async throws -> Double {
            var rates: [Double] = []
            for _ in 0..<max(1, options.rounds) {
                let elapsed = microseconds(try await phase(kind, size: size, count: count))
                rates.append(elapsed > 0 ? Double(count) * 1e6 / elapsed : 0)
            }
            return percentile(rates, 0.5)
        }

        var figures: [BenchFigure] = []
        for size in options.sizes {
            let large = size >= 1 << 20
            let calls = large ? options.largeCalls : options.calls
            let flightCount = large ? options.largeInFlight : options.inFlight
            // Warm both paths up, then alternate so that machine noise hits both alike.
            _ = try await roundTrips(echo.arrivals, "bare-seq", size: size, count: min(calls, 50))
            _ = try await roundTrips(bridgeArrivals, "bridge-seq", size: size, count: min(calls, 50))
            var bare: [Double] = []
            var bridge: [Double] = []
            // Short alternating blocks: drift in machine load (other processes, the web process's GC) then
            // lands on both sides instead of on whichever ran during it.
            // (Large payloads: blocks of 15 calls, so 60 calls still alternate four times.)
            let blocks = large ? max(2, min(10, calls / 15)) : max(1, min(10, calls / 50))
            for _ in 0..<blocks {
                bare += try await roundTrips(echo.arrivals, "bare-seq", size: size, count: calls / blocks)
                bridge += try await roundTrips(bridgeArrivals, "bridge-seq", size: size, count: calls / blocks)
            }
            let bareFlight = try await inFlight("bare-flight", size: size, count: flightCount)
            let bridgeFlight = try await inFlight("bridge-flight", size: size, count: flightCount)
            _ = echo.arrivals.take()
            _ = bridgeArrivals.take()

            let label = large ? "\(size >> 20) MB" : "\(size) B"
            let bareP50 = percentile(bare, 0.5)
            let floor = 1_000_000 / bareP50
            figures += [
                BenchFigure(
                    scenario: "bridge", figure: "sequential p50, \(label)", value: percentile(bridge, 0.5), unit: "µs",
                    baselineName: "bare echo p50", baseline: bareP50, better: .lower, targetRatio: 1.15),
                BenchFigure(
                    scenario: "bridge", figure: "sequential p99, \(label)", value: percentile(bridge, 0.99), unit: "µs",
                    baselineName: "bare echo p99", baseline: percentile(bare, 0.99), better: .lower),
                BenchFigure(
                    scenario: "bridge", figure: "\(flightCount) in flight, \(label)", value: bridgeFlight,
                    unit: "calls/s",
                    baselineName: "sequential floor (1/bare p50)", baseline: floor, better: .higher,
                    targetRatio: large ? nil : 5),
                BenchFigure(
                    scenario: "bridge", figure: "\(flightCount) in flight, bare echo, \(label)", value: bareFlight,
                    unit: "calls/s", baselineName: "sequential floor (1/bare p50)", baseline: floor, better: .higher),
                BenchFigure(
                    scenario: "bridge", figure: "\(flightCount) in flight against the bare echo in flight, \(label)",
                    value: bridgeFlight, unit: "calls/s", baselineName: "bare echo, \(flightCount) in flight",
                    baseline: bareFlight, better: .higher),
            ]
        }

        /// The synchronous round trip against the asynchronous one (interleaved blocks, 100 B), and streamed
        /// elements against as many separate calls (sequential, and all in flight at once).
        func synchronousAndStreamed() async throws -> [BenchFigure] {
            let size = 100
            _ = try await roundTrips(bridgeArrivals, "sync-seq", size: size, count: 50)
            var synchronous: [Double] = []
            var asynchronous: [Double] = []
            let blocks = max(1, min(10, options.syncCalls / 50))
            for _ in 0..<blocks {
                synchronous += try await roundTrips(
                    bridgeArrivals, "sync-seq", size: size, count: options.syncCalls / blocks)
                asynchronous += try await roundTrips(
                    bridgeArrivals, "bridge-seq", size: size, count: options.syncCalls / blocks)
            }
            _ = bridgeArrivals.take()
            let count = options.streamElements
            func rate(_ kind: String) async throws -> Double {
                var rates: [Double] = []
                for _ in 0..<max(1, options.rounds) {
                    let elapsed = microseconds(try await phase(kind, size: size, count: count))
                    rates.append(elapsed > 0 ? Double(count) * 1e6 / elapsed : 0)
                }
                return percentile(rates, 0.5)
            }
            _ = try await rate("stream")
            let streamed = try await rate("stream")
            let sequential = try await rate("calls-seq")
            let concurrent = try await rate("calls-flight")
            return [
                BenchFigure(
                    scenario: "bridge", figure: "synchronous call p50, \(size) B (page blocked throughout)",
                    value: percentile(synchronous, 0.5), unit: "µs", baselineName: "asynchronous call p50",
                    baseline: percentile(asynchronous, 0.5), better: .lower),
                BenchFigure(
                    scenario: "bridge", figure: "synchronous call p99, \(size) B", value: percentile(synchronous, 0.99),
                    unit: "µs", baselineName: "asynchronous call p99", baseline: percentile(asynchronous, 0.99),
                    better: .lower),
                BenchFigure(
                    scenario: "bridge", figure: "streamed, \(count) × \(size) B", value: streamed, unit: "elements/s",
                    baselineName: "\(count) sequential calls", baseline: sequential, better: .higher, targetRatio: 5),
                BenchFigure(
                    scenario: "bridge", figure: "streamed, \(count) × \(size) B, against concurrent calls",
                    value: streamed, unit: "elements/s", baselineName: "\(count) concurrent calls",
                    baseline: concurrent, better: .higher),
            ]
        }

        figures += try await synchronousAndStreamed()
        // A baseline that read 0 measured nothing: an error, not a ratio of 0.
        if let empty = figures.first(where: { $0.baseline <= 0 || !$0.baseline.isFinite }) {
            throw BridgeBytesBenchmark.Failure.zeroBaseline(empty.figure)
        }
        if options.binarySize > 0 {
            _ = try await view.evaluateJavaScript("window.sinkURL = '\(sink.origin)\(BodySink.path)'; true")
            figures += try await BridgeBytesBenchmark.figures(
                size: options.binarySize, rounds: options.binaryTransfers, blocks: options.binaryBlocks,
                phases: .init(run: { kind, size, count in try await phase(kind, size: size, count: count) }))
        }
        return figures
    }

    static func microseconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) * 1e6 + Double(parts.attoseconds) / 1e12
    }

    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))]
    }
}

/// Resumes a waiter when the main frame finishes loading.
final class LoadSignal: NavigationDelegate, Sendable {
    private struct State {
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    func didFinishNavigation(to url: URL?) {
        state.withLock { state in
            state.finished = true
            return state.waiter.take()
        }?.resume()
    }

    @GTKActor func wait() async {
        await withCheckedContinuation { continuation in
            let finished = state.withLock { state in
                if !state.finished { state.waiter = continuation }
                return state.finished
            }
            if finished { continuation.resume() }
        }
    }
}
#endif
