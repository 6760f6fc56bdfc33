import ArgumentParser
import HybridTour

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks. Each figure is printed next to a baseline measured in the same run.",
        discussion: "Build with -c release for meaningful numbers: swift run -c release hybrid bench bridge",
        subcommands: [BridgeBench.self])

    struct Output: ParsableArguments {
        @Flag(name: .long, help: "Print one JSON object per figure instead of a table.")
        var json = false

        func print(_ figures: [BenchFigure]) {
            Swift.print(json ? BenchReport.json(figures) : BenchReport.table(figures))
        }
    }

    struct BridgeBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bridge",
            abstract: "Bridge round trips vs a bare postMessage → evaluate_javascript echo, in one engine.",
            discussion: """
                Sequential p50/p99 (target: p50 ≤ 1.15× the bare echo for small payloads) and throughput with many
                calls in flight (target: ≥ 5× the sequential floor, 1/bare-echo p50), for 100 B and 1 MB payloads.
                """)

        @OptionGroup var output: Output
        @OptionGroup var global: GlobalOptions
        @Option(help: "Sequential calls per measurement (small payloads).") var calls = 2000
        @Option(help: "Calls in flight at once (small payloads).") var inFlight = 1000
        @Option(help: "Sequential calls per measurement (1 MB payloads).") var largeCalls = 60
        @Option(help: "Calls in flight at once (1 MB payloads).") var largeInFlight = 50

        func validate() throws {
            guard calls > 0, inFlight > 0, largeCalls > 0, largeInFlight > 0 else {
                throw ValidationError("counts must be positive")
            }
        }

        func run() async throws {
            global.bootstrapLogging()
            var options = BridgeBenchmark.Options()
            options.calls = calls
            options.inFlight = inFlight
            options.largeCalls = largeCalls
            options.largeInFlight = largeInFlight
            output.print(try await BridgeBenchmark.run(options))
        }
    }
}
