#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK

/// `hybrid bench container`: time to first paint from a pooled view vs a cold one, and what an idle pooled view
/// costs in memory vs a view showing a page, all in one run.
///
/// First paint, precisely: from the moment the host asks for a page (the container is created: a view taken from
/// the pool, or a new view made) to the arrival in native code of a message the page posts from its second
/// `requestAnimationFrame` callback (`bench/paint.html`). The first callback runs before the first frame showing
/// the content is drawn, the second after it; the page is served from a scheme handler, so no network is timed.
public enum ContainerBenchmark {
    public struct Options: Sendable {
        /// Timed page opens per side (after one untimed warm-up each).
        public var rounds = 10
        /// Views per side for the memory figure.
        public var memoryViews = 4
        /// Create/load/close cycles per side for the heap-growth figure (after 10 unmeasured ones each).
        public var churnCycles = 60
        public var progress: (@Sendable (String) -> Void)?
        public init() {}
    }

    public enum BenchError: Error, CustomStringConvertible {
        case noPages
        case pageFailed(String)

        public var description: String {
            switch self {
            case .noPages: BenchPages.Failure.missing.description
            case .pageFailed(let why): "the benchmark page failed: \(why)"
            }
        }
    }

    static let scenario = "container"

    @GTKActor
    public static func run(_ options: Options = Options()) async throws -> [BenchFigure] {
        try GTKRuntime.shared.start(.headless)
        guard let serving = BenchPages.serving else { throw BenchError.noPages }
        guard let url = URL(string: "app://demo/bench/paint.html") else { throw BenchError.noPages }
        let factory = GTKEngineFactory()
        let pool = WebViewPool(factory: factory, configuration: PoolConfiguration(warmCount: 1, capacity: 1))
        try await pool.prewarm()
        defer { Task { pool.drain() } }

        let painted = PageDoneSignal()
        let configuration = ContainerConfiguration(
            messageHandlers: [HostMessageHandler(name: "benchPage", handler: painted)], features: [serving])

        func open(pooled: Bool) async throws -> Double {
            if pooled {
                // The previous pooled page's view is reset in the background; a host would have it back by the
                // time it opens the next page. Waiting here keeps that reset out of both figures.
                try await waitForIdle(pool)
            }
            var container: HybridContainer?
            defer { container?.close() }
            let start = ContinuousClock.now
            let outcome = try await painted.wait(timeout: .seconds(60)) {
                let made =
                    pooled
                    ? try HybridContainer(configuration: configuration, pool: pool)
                    : try HybridContainer(configuration: configuration, factory: factory)
                container = made
                try made.load(url)
            }
            guard outcome.text == "ok" else { throw BenchError.pageFailed(outcome.text) }
            if pooled, container?.isPooled != true { throw BenchError.pageFailed("the pool had no warm view") }
            return milliseconds(outcome.arrival - start)
        }

        _ = try await open(pooled: true)
        _ = try await open(pooled: false)
        var warm: [Double] = []
        var cold: [Double] = []
        for round in 0..<options.rounds {
            // Alternating, and swapping who goes first, so drift in machine load lands on both sides alike.
            if round % 2 == 0 {
                warm.append(try await open(pooled: true))
                cold.append(try await open(pooled: false))
            } else {
                cold.append(try await open(pooled: false))
                warm.append(try await open(pooled: true))
            }
            options.progress?(
                String(
                    format: "first paint %d: pooled %.1f ms, cold %.1f ms", round + 1, warm.last ?? 0, cold.last ?? 0))
        }
        var figures = [
            BenchFigure(
                scenario: scenario, figure: "time to first paint, pooled view, median of \(options.rounds)",
                value: median(warm), unit: "ms", baselineName: "new view, same page", baseline: median(cold),
                better: .lower, targetRatio: 0.5)
        ]
        figures.append(try await memory(factory: factory, configuration: configuration, url: url, options: options))
        figures.append(try await churn(factory: factory, configuration: configuration, url: url, options: options))
        return figures
    }

    @GTKActor
    static func waitForIdle(_ pool: WebViewPool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while pool.idleCount == 0 {
            guard ContinuousClock.now < deadline else { throw BenchError.pageFailed("the pooled view was not reset") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Memory (PSS) of this process and its WebKit processes per view: idle pooled views vs views showing
    /// the bench page.
    @GTKActor
    static func memory(
        factory: GTKEngineFactory, configuration: ContainerConfiguration, url: URL, options: Options
    ) async throws -> BenchFigure {
        let count = max(1, options.memoryViews)
        try await Task.sleep(for: .milliseconds(500))
        let before = ProcessMemory.proportionalWithChildren()
        let idle = WebViewPool(factory: factory, configuration: PoolConfiguration(warmCount: count, capacity: count))
        try await idle.prewarm()
        try await Task.sleep(for: .milliseconds(500))
        let withIdle = ProcessMemory.proportionalWithChildren()
        idle.drain()
        try await Task.sleep(for: .milliseconds(500))

        let middle = ProcessMemory.proportionalWithChildren()
        let signal = PageDoneSignal()
        var showing = configuration
        showing.messageHandlers = [HostMessageHandler(name: "benchPage", handler: signal)]
        var containers: [HybridContainer] = []
        defer { for container in containers { container.close() } }
        for _ in 0..<count {
            let outcome = try await signal.wait(timeout: .seconds(60)) {
                let container = try HybridContainer(configuration: showing, factory: factory)
                containers.append(container)
                try container.load(url)
            }
            guard outcome.text == "ok" else { throw BenchError.pageFailed(outcome.text) }
        }
        try await Task.sleep(for: .milliseconds(500))
        let withPages = ProcessMemory.proportionalWithChildren()
        let perIdle = Double(withIdle - before) / Double(count) / 1_048_576
        let perPage = Double(withPages - middle) / Double(count) / 1_048_576
        options.progress?(
            String(
                format: "memory: %d idle pooled views +%.1f MB, %d views with the page +%.1f MB", count,
                Double(withIdle - before) / 1_048_576, count, Double(withPages - middle) / 1_048_576))
        return BenchFigure(
            scenario: scenario, figure: "memory per idle pooled view (PSS, host + WebKit processes), \(count) views",
            value: perIdle, unit: "MB", baselineName: "per view showing the bench page", baseline: perPage,
            better: .lower)
    }

    /// Heap left behind per cycle: a container (bridge, scripts, scheme handler, navigation policy, recovery)
    /// made, loaded with the bench page and closed, vs a bare view given the same scheme handler and page. What
    /// the container adds over the bare view is what it could be leaking.
    @GTKActor
    static func churn(
        factory: GTKEngineFactory, configuration: ContainerConfiguration, url: URL, options: Options
    ) async throws -> BenchFigure {
        guard let serving = BenchPages.serving else { throw BenchError.noPages }
        let signal = PageDoneSignal()
        var full = configuration
        full.messageHandlers = [HostMessageHandler(name: "benchPage", handler: signal)]
        full.navigationPolicy = NavigationPolicyConfiguration()

        func containerCycle() async throws {
            var container: HybridContainer?
            defer { container?.close() }
            let outcome = try await signal.wait(timeout: .seconds(60)) {
                let made = try HybridContainer(configuration: full, factory: factory)
                container = made
                try made.load(url)
            }
            guard outcome.text == "ok" else { throw BenchError.pageFailed(outcome.text) }
        }
        func bareCycle() async throws {
            let engine = try factory.makeEngine()
            defer { (engine as? GTKWebView)?.close() }
            var assembly = PageAssembly(engine: engine)
            try serving.build(&assembly)
            for (scheme, handler) in assembly.schemeHandlers { try engine.setSchemeHandler(handler, forScheme: scheme) }
            engine.addScriptMessageHandler(signal, name: "benchPage", replies: false)
            let outcome = try await signal.wait(timeout: .seconds(60)) { try engine.load(EngineRequest(url: url)) }
            engine.removeScriptMessageHandler(name: "benchPage")
            guard outcome.text == "ok" else { throw BenchError.pageFailed(outcome.text) }
        }
        func settledHeap() async throws -> Int {
            // Closed views are freed once the GTK loop has run their teardown.
            try await Task.sleep(for: .milliseconds(500))
            return ProcessMemory.heapInUse
        }
        // The engine's own growth is not steady early on: in a run the first block of cycles after warming up
        // grows far less than later ones (5 vs 22 KiB per cycle for bare views), so that block is not counted,
        // and then the sides go in the order bare, container, container, bare and each sums its two blocks.
        func block(_ cycle: () async throws -> Void, _ count: Int) async throws -> Int {
            let before = try await settledHeap()
            for _ in 0..<count { try await cycle() }
            return try await settledHeap() - before
        }
        for _ in 0..<10 {
            try await bareCycle()
            try await containerCycle()
        }
        let half = max(1, options.churnCycles / 2)
        let settling = try await block(bareCycle, half)
        var bareGrowth = try await block(bareCycle, half)
        var containerGrowth = try await block(containerCycle, half)
        containerGrowth += try await block(containerCycle, half)
        bareGrowth += try await block(bareCycle, half)
        options.progress?(
            String(format: "heap, uncounted first block: %+.1f KiB per cycle", Double(settling) / Double(half) / 1024))
        let bare = Double(bareGrowth) / Double(2 * half) / 1024
        let container = Double(containerGrowth) / Double(2 * half) / 1024
        options.progress?(
            String(format: "heap per cycle: container %+.1f KiB, bare view %+.1f KiB", container, bare))
        return BenchFigure(
            scenario: scenario,
            figure: "heap left per create/load/close cycle, container, \(2 * half) cycles",
            value: container, unit: "KiB", baselineName: "bare view, same page", baseline: bare, better: .lower)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }

    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
#endif
