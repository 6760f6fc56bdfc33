#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import ArgumentParser
import Foundation
import HybridTools
import HybridBench

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks. Each figure is printed next to a baseline measured in the same run.",
        discussion: "Build with -c release for meaningful numbers: swift run -c release hybrid bench bridge",
        subcommands: [
            BridgeBench.self, FloodBench.self, PackagesBench.self, UpdatesBench.self, BodiesBench.self,
            CookiesBench.self, ContainerBench.self, FirstScreenBenchCommand.self,
        ])

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
                Then a synchronous call's round trip against an asynchronous one's (the page's main thread is blocked
                for that long), and a stream's elements per second against as many separate calls (target: 5x or more).
                """)

        @OptionGroup var output: Output
        @OptionGroup var global: GlobalOptions
        @Option(help: "Sequential calls per measurement (small payloads).") var calls = 2000
        @Option(help: "Calls in flight at once (small payloads).") var inFlight = 1000
        @Option(help: "Sequential calls per measurement (1 MB payloads).") var largeCalls = 60
        @Option(help: "Calls in flight at once (1 MB payloads).") var largeInFlight = 50
        @Option(help: "Synchronous round trips (100 B), against as many asynchronous ones.") var syncCalls = 1000
        @Option(help: "Elements of the streamed figure, against as many separate calls.") var streamElements = 10_000
        @Option(
            help:
                "Batches of at least this many bytes reach the page as a function's argument instead of an evaluated literal (0: all, -1: none; default: the bridge's)."
        ) var functionCallThreshold: Int?
        @Option(parsing: .upToNextOption, help: "Payload sizes of the round-trip figures, in bytes.")
        var sizes: [Int] = [100, 1 << 20]
        @Option(help: "Bytes of the binary figures (result to the page, argument to native); 0 leaves them out.")
        var binarySize = 10 << 20
        @Option(help: "Transfers per timed binary phase.") var binaryTransfers = 4
        @Option(help: "Alternating blocks of the binary figures.") var binaryBlocks = 6

        func validate() throws {
            guard calls > 0, inFlight > 0, largeCalls > 0, largeInFlight > 0, syncCalls > 0, streamElements > 0,
                !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 })
            else {
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
            options.syncCalls = syncCalls
            options.streamElements = streamElements
            options.sizes = sizes
            options.binarySize = binarySize
            options.binaryTransfers = binaryTransfers
            options.binaryBlocks = binaryBlocks
            if let functionCallThreshold {
                options.functionCallThreshold = functionCallThreshold < 0 ? Int.max : functionCallThreshold
            }
            output.print(try await BridgeBenchmark.run(options))
        }
    }

    struct FloodBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "flood",
            abstract: "What a flood of bridge calls from one view costs the other views sharing GTK's main loop.",
            discussion: """
                One view issues --calls calls at once while a second view pings the bridge and a probe ticks at \
                redraw priority. Prints the longest main-loop stall (target: ≤ 4× the idle loop's longest frame \
                interval) and the other view's longest wait for an answer, each next to the same reading taken \
                while nothing floods.
                """)

        @OptionGroup var output: Output
        @OptionGroup var global: GlobalOptions
        @Option(help: "Calls the flooding view issues at once.") var calls = 200_000

        func validate() throws {
            guard calls > 0 else { throw ValidationError("--calls must be positive") }
        }

        func run() async throws {
            global.bootstrapLogging()
            var options = FloodBenchmark.Options()
            options.calls = calls
            output.print(try await FloodBenchmark.run(options))
        }
    }

    struct PackagesBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "packages",
            abstract: "Offline packages: page loads, store lookups and installs vs their plain alternatives.",
            discussion: """
                Load time of a page with 200 sub-resources (~5 MB) from a package vs the same files from a loopback
                HTTP server (target ≤ 1.0×); PackageResolver lookups per second vs a stat of the same files; verified
                install of a 20 MB / 2,000-file package vs unzip of the same zip (target ≤ 1.2×). Needs
                /usr/bin/unzip.
                """)

        @OptionGroup var output: Output
        @OptionGroup var global: GlobalOptions
        @Option(help: "Timed page loads per side.") var loads = 5
        @Option(help: "Timed installs per side.") var installs = 3

        func validate() throws {
            guard loads > 0, installs > 0 else { throw ValidationError("counts must be positive") }
        }

        func run() async throws {
            global.bootstrapLogging()
            var options = PackagesBenchmark.Options()
            options.loads = loads
            options.installs = installs
            if global.verbose {
                // Progress goes to standard error so that --json output stays parseable.
                options.progress = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
            }
            output.print(try await PackagesBenchmark.run(options))
        }
    }

    struct UpdatesBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "updates",
            abstract: "Binary-delta diffs on real releases vs today's per-file diffs and zstd --patch-from.",
            discussion: """
                For each <data>/<app>/ with two SemVer-named front-end folders (fetch them with
                scripts/fetch-update-bench-data.sh): bytes of the delta diff vs today's per-file diff (target ≤ 0.3×)
                and vs zstd -19 --patch-from with the same bases in the same container (target ≤ 1.2×); time to apply
                it vs a full install of the new version, download excluded (target ≤ 1.5×); heap peak while applying
                vs twice the largest file (target ≤ 1.0×); time to build it. Needs zstd (apt-get install -y zstd).
                """)

        @OptionGroup var output: Output
        @OptionGroup var global: GlobalOptions
        @Option(help: "Directory of <app>/<version>/ front-end folders.") var data = "/tmp/hybrid-update-bench"
        @Option(help: "Timed installs per side.") var rounds = 3
        @Option(help: "The zstd executable (the reference).") var zstd = "/usr/bin/zstd"

        func validate() throws {
            guard rounds > 0 else { throw ValidationError("--rounds must be positive") }
        }

        func run() async throws {
            global.bootstrapLogging()
            var options = DeltaUpdatesBenchmark.Options()
            options.dataDirectory = URL(fileURLWithPath: data)
            options.rounds = rounds
            options.zstdPath = zstd
            if global.verbose {
                options.progress = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
            }
            output.print(try await DeltaUpdatesBenchmark.run(options))
        }
    }

    struct ContainerBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "container",
            abstract: "Containers: time to first paint from a pooled view vs a new one; memory of an idle pooled view.",
            discussion: """
                First paint is measured from the host asking for a page (container created) to the page's second
                requestAnimationFrame callback posting to native (target: pooled ≤ 0.5× new). Memory is the proportional
                set size (PSS) of this process and its WebKit processes per idle pooled view, next to a view showing
                the page. Heap left per cycle is glibc's heap in use after create/load/close cycles of a container,
                next to a bare view given the same page: what a container would leak shows as the difference.
                """)

        @OptionGroup var output: Output
        @OptionGroup var global: GlobalOptions
        @Option(help: "Timed page opens per side.") var rounds = 10
        @Option(help: "Views per side for the memory figure.") var memoryViews = 4
        @Option(help: "Create/load/close cycles per side for the heap figure.") var churnCycles = 60

        func validate() throws {
            guard rounds > 0, memoryViews > 0, churnCycles > 0 else { throw ValidationError("counts must be positive") }
        }

        func run() async throws {
            global.bootstrapLogging()
            var options = ContainerBenchmark.Options()
            options.rounds = rounds
            options.memoryViews = memoryViews
            options.churnCycles = churnCycles
            if global.verbose {
                options.progress = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
            }
            output.print(try await ContainerBenchmark.run(options))
        }
    }

    struct CookiesBench: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cookies",
            abstract: "Cookie-for-URL lookups: the HybridKit jar vs Foundation's HTTPCookieStorage, same cookies.",
            discussion: """
                10,000 cookies over 1,000 domains by default; each lookup builds the Cookie header for one site's URL.
                Target: ≥ 10× HTTPCookieStorage's lookups per second.
                """)

        @OptionGroup var output: Output
        @OptionGroup var global: GlobalOptions
        @Option(help: "Registrable domains.") var domains = 1000
        @Option(help: "Cookies per domain.") var cookiesPerDomain = 10
        @Option(help: "Measuring time per side, in seconds.") var seconds = 2.0

        func validate() throws {
            guard domains > 0, cookiesPerDomain > 0, seconds > 0 else {
                throw ValidationError("counts and seconds must be positive")
            }
        }

        func run() throws {
            global.bootstrapLogging()
            var options = CookiesBenchmark.Options()
            options.domains = domains
            options.cookiesPerDomain = cookiesPerDomain
            options.seconds = seconds
            output.print(try CookiesBenchmark.run(options))
        }
    }

    struct BodiesBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bodies",
            abstract: "Blob POSTs through body-by-id and full proxy vs an unhooked POST of the same bytes.",
            discussion: """
                1 MB and 20 MB Blob POSTs to a loopback echo server from a hooked page (each strategy) and from the
                same page unhooked, in one engine (target ≤ 1.3×; full proxy ≤ 1.2× at 20 MB); host peak memory next to
                the body size (target ≤ 2×); and the anchors' one-base64-message transfer for comparison. Each upload
                route (slices to the scheme handler, the loopback body channel) runs in its own view; the unhooked
                POST is measured in blocks alternating with each hooked side, and each side's figure uses the
                unhooked samples of its own blocks.
                """)

        @OptionGroup var output: Output
        @OptionGroup var global: GlobalOptions
        @Option(help: "Timed POSTs per side, size and block.") var posts = 5
        @Option(help: "Blocks per hooked side, each with the unhooked POST measured beside it.") var blocks = 3
        @Option(parsing: .upToNextOption, help: "Body sizes in MB.") var megabytes = [1, 20]
        @Flag(help: "Also print each hooked side's upload leg (page → host) and the page's read of the Blob.")
        var legs = false
        @Option(help: "Hook chunk size in KB (default: the hooks' default).") var chunkKb: Int?
        @Option(help: "Chunk uploads of one body in flight at once (default: the hooks' default).") var inFlight: Int?
        @Option(
            parsing: .upToNextOption,
            help: "Upload routes to measure: slices (to the scheme handler), channel (the loopback body channel).")
        var uploads = BodiesBenchmark.Upload.allCases.map(\.rawValue)

        func validate() throws {
            guard posts > 0 else { throw ValidationError("posts must be positive") }
            guard blocks > 0 else { throw ValidationError("blocks must be positive") }
            if let chunkKb, !(16...16384).contains(chunkKb) {
                throw ValidationError("chunk size must be between 16 KB and 16384 KB")
            }
            if let inFlight, !(1...16).contains(inFlight) { throw ValidationError("in-flight must be 1 to 16") }
            for upload in uploads where BodiesBenchmark.Upload(rawValue: upload) == nil {
                throw ValidationError("unknown upload route '\(upload)': use slices or channel")
            }
            guard !megabytes.isEmpty, megabytes.allSatisfy({ $0 > 0 && $0 <= 60 }) else {
                throw ValidationError("sizes must be between 1 and 60 MB (the body store's limit is 64 MB)")
            }
        }

        func run() async throws {
            global.bootstrapLogging()
            var options = BodiesBenchmark.Options()
            options.posts = posts
            options.blocks = blocks
            options.sizes = megabytes.map { $0 << 20 }
            options.proxy = BodiesBenchProxy.make()
            options.proxyName = BodiesBenchProxy.name
            options.legs = legs
            options.chunkBytes = chunkKb.map { $0 << 10 }
            options.uploadsInFlight = inFlight
            options.uploads = uploads.compactMap(BodiesBenchmark.Upload.init(rawValue:))
            output.print(try await BodiesBenchmark.run(options))
        }
    }
}
#endif
