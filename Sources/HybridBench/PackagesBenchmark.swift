#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridPackages
import HybridTestServers

/// `hybrid bench packages`: serving and installing offline packages, each figure against the plain alternative
/// measured in the same run — a loopback HTTP server for page loads, `fileExists` for lookups, `unzip` for
/// installs.
public enum PackagesBenchmark {
    public struct Options: Sendable {
        public var scripts = 80
        public var styles = 20
        public var images = 100
        public var textBytes = 40 * 1024
        public var imageBytes = 10 * 1024
        /// Timed page loads per side (after one untimed warm-up each).
        public var loads = 5
        public var lookupSeconds = 1.0
        public var installFiles = 2000
        public var installFileBytes = 10 * 1024
        /// Timed installs per side.
        public var installs = 3
        /// Where `unzip` is expected; the install figure has no meaning without it.
        public var unzipPath = "/usr/bin/unzip"
        /// Called with a line of progress (each timed sample) when set: `--verbose`.
        public var progress: (@Sendable (String) -> Void)?
        public init() {}
    }

    public enum BenchError: Error, CustomStringConvertible {
        case unzipMissing(String)
        case unzipFailed(Int32)
        case pageFailed(String)
        case lookupFailed(String)
        case updateFailed(String)

        public var description: String {
            switch self {
            case .unzipMissing(let path):
                "\(path) is missing: the install figure is measured against it. Install it (apt-get install "
                    + "unzip, or scripts/install-deps.sh) and run again."
            case .unzipFailed(let status): "unzip exited with status \(status)"
            case .pageFailed(let why): "the benchmark page failed: \(why)"
            case .lookupFailed(let why): "a store lookup failed: \(why)"
            case .updateFailed(let why): "the update benchmark failed: \(why)"
            }
        }
    }

    static let prefix = "https://bench.test/app/"
    static let scenario = "packages"

    public static func run(_ options: Options = Options()) async throws -> [BenchFigure] {
        // Checked first: finding out after the page loads that the last figure cannot be measured wastes a run.
        guard FileManager.default.isExecutableFile(atPath: options.unzipPath) else {
            throw BenchError.unzipMissing(options.unzipPath)
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let keys = PackageKeyPair.generate()
        let version = SemanticVersion(major: 1, minor: 0, patch: 0)

        // The site lives at <root>/site/app so that the loopback server serves it under /app/, like the package.
        let site = root.appendingPathComponent("site/app")
        let page = try BenchSite.writePage(
            to: site, scripts: options.scripts, styles: options.styles, images: options.images,
            textBytes: options.textBytes, imageBytes: options.imageBytes)
        let zip = root.appendingPathComponent("page.zip")
        try PackagePacker().pack(
            directory: site, options: PackOptions(id: "test.bench.page", version: version, serves: [prefix]),
            keyPair: keys, to: zip)
        let store = try PackageStore(root: root.appendingPathComponent("store"), trustedKey: keys.verificationKey)
        try PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: version)
            .install(packageAt: zip)

        var figures = [
            try await pageLoad(
                store: store, siteRoot: root.appendingPathComponent("site"), page: page, options: options)
        ]
        figures.append(try lookups(store: store, page: page, options: options))
        figures.append(try install(in: root.appendingPathComponent("install"), keys: keys, options: options))
        figures += try await UpdateBenchmark.run(
            in: root.appendingPathComponent("update"), keys: keys, files: options.installFiles / 4,
            fileBytes: options.installFileBytes, rounds: options.installs, progress: options.progress)
        return figures
    }

    // MARK: Page load

    @GTKActor
    static func pageLoad(store: PackageStore, siteRoot: URL, page: BenchSite.Page, options: Options) async throws
        -> BenchFigure
    {
        try GTKRuntime.shared.start(.headless)
        let server = try await LoopbackServer.start(serving: siteRoot)
        defer { server.stop() }
        // One view per side, reused: after the warm-up both web processes are running, so a timed load measures
        // serving, not process start-up. Caches are cold on both sides (see BenchSite.writePage).
        let packageView = GTKWebView()
        defer { packageView.close() }
        let serverView = GTKWebView()
        defer { serverView.close() }
        let packageDone = PageDoneSignal()
        let serverDone = PageDoneSignal()
        packageView.addScriptMessageHandler(packageDone, name: "benchPage", replies: false)
        serverView.addScriptMessageHandler(serverDone, name: "benchPage", replies: false)
        let handler = PackageSchemeHandler(
            store: store, route: try OfflineRoute(scheme: "hybrid", prefixes: [prefix]),
            hop: EngineExecutorHop.hop(onExecutorOf: packageView))
        try packageView.setSchemeHandler(handler, forScheme: "hybrid")

        var serial = 0
        func load(_ view: GTKWebView, _ done: PageDoneSignal, base: String) async throws -> Double {
            serial += 1
            guard let url = URL(string: "\(base)index.html?run=\(serial)-\(UUID().uuidString)") else {
                throw BenchError.pageFailed("bad URL \(base)")
            }
            var start = ContinuousClock.now
            let outcome = try await done.wait(timeout: .seconds(120)) {
                start = .now
                try view.load(EngineRequest(url: url))
            }
            guard outcome.text == "ok" else { throw BenchError.pageFailed("\(url): \(outcome.text)") }
            return milliseconds(outcome.arrival - start)
        }

        let packageBase = "hybrid://bench.test/app/"
        let serverBase = "\(server.origin)/app/"
        _ = try await load(packageView, packageDone, base: packageBase)
        _ = try await load(serverView, serverDone, base: serverBase)
        var fromPackage: [Double] = []
        var fromServer: [Double] = []
        for round in 0..<options.loads {
            // Alternating, and swapping who goes first, so drift in machine load lands on both sides alike.
            if round % 2 == 0 {
                fromPackage.append(try await load(packageView, packageDone, base: packageBase))
                fromServer.append(try await load(serverView, serverDone, base: serverBase))
            } else {
                fromServer.append(try await load(serverView, serverDone, base: serverBase))
                fromPackage.append(try await load(packageView, packageDone, base: packageBase))
            }
            options.progress?(
                "page load \(round + 1): package \(format(fromPackage.last)) ms, "
                    + "loopback HTTP \(format(fromServer.last)) ms")
        }
        let megabytes = String(format: "%.1f MB", Double(page.totalBytes) / 1_000_000)
        return BenchFigure(
            scenario: scenario,
            figure: "page load, \(page.resources.count) sub-resources (\(megabytes)), median of \(options.loads)",
            value: median(fromPackage), unit: "ms", baselineName: "loopback HTTP, same files",
            baseline: median(fromServer), better: .lower, targetRatio: 1.0)
    }

    // MARK: Lookups

    static func lookups(store: PackageStore, page: BenchSite.Page, options: Options) throws -> BenchFigure {
        let resolver = PackageResolver(store: store)
        let urls = page.resources.map { prefix + $0 }
        // The baseline is what a server walking a directory pays at least per request: one stat of the file.
        var paths: [String] = []
        for url in urls {
            guard let resolved = try resolver.resolve(url) else { throw BenchError.lookupFailed("\(url) not found") }
            paths.append(resolved.fileURL.path)
        }
        func perSecond(seconds: Double, _ lookup: (Int) -> Bool) throws -> (count: Int, elapsed: Double) {
            let clock = ContinuousClock()
            let start = clock.now
            var count = 0
            var elapsed = 0.0
            repeat {
                for index in urls.indices where !lookup(index) {
                    throw BenchError.lookupFailed(urls[index])
                }
                count += urls.count
                elapsed = milliseconds(clock.now - start) / 1000
            } while elapsed < seconds
            return (count, elapsed)
        }
        let blocks = 4
        var resolved = (count: 0, elapsed: 0.0)
        var stats = (count: 0, elapsed: 0.0)
        for _ in 0..<blocks {
            let slice = options.lookupSeconds / Double(blocks)
            let resolving = try perSecond(seconds: slice) { index in (try? resolver.resolve(urls[index])) != nil }
            let stating = try perSecond(seconds: slice) { index in
                FileManager.default.fileExists(atPath: paths[index])
            }
            resolved = (resolved.count + resolving.count, resolved.elapsed + resolving.elapsed)
            stats = (stats.count + stating.count, stats.elapsed + stating.elapsed)
        }
        return BenchFigure(
            scenario: scenario, figure: "store lookups (PackageResolver.resolve, \(urls.count) URLs)",
            value: Double(resolved.count) / resolved.elapsed, unit: "lookups/s",
            baselineName: "FileManager.fileExists, same files", baseline: Double(stats.count) / stats.elapsed,
            better: .higher)
    }

    // MARK: Install

    static func install(in directory: URL, keys: PackageKeyPair, options: Options) throws -> BenchFigure {
        let files = directory.appendingPathComponent("files")
        try BenchSite.writeFiles(to: files, count: options.installFiles, size: options.installFileBytes)
        let version = SemanticVersion(major: 1, minor: 0, patch: 0)
        let zip = directory.appendingPathComponent("install.zip")
        try PackagePacker().pack(
            directory: files,
            options: PackOptions(id: "test.bench.install", version: version, serves: ["https://install.test/"]),
            keyPair: keys, to: zip)
        let manager = FileManager.default
        var round = 0
        // Every sample's output stays until the run's directory is removed at the end. ext4 without a journal (as
        // on the machine these figures were first taken on) skips inodes freed in the last minute when it
        // allocates new ones (`recently_deleted`), at one lookup per freed inode: with each sample's 2,000 files
        // deleted before the next, every sample paid more than the one before it, whichever side it measured
        // (178 ms for the first install, 337 ms for the fifth in one run), and the update figures below paid too.

        func verifiedInstall() throws -> Double {
            round += 1
            let storeRoot = directory.appendingPathComponent("store-\(round)")
            // Opening the store is not part of an install: an app opens it once at launch.
            let store = try PackageStore(root: storeRoot, trustedKey: keys.verificationKey)
            let installer = PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: version)
            let start = ContinuousClock.now
            try installer.install(packageAt: zip)
            return milliseconds(.now - start)
        }
        func unzip() throws -> Double {
            round += 1
            let target = directory.appendingPathComponent("unzip-\(round)")
            try manager.createDirectory(at: target, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: options.unzipPath)
            process.arguments = ["-q", "-o", zip.path, "-d", target.path]
            let start = ContinuousClock.now
            try process.run()
            process.waitUntilExit()
            let elapsed = milliseconds(.now - start)
            guard process.terminationStatus == 0 else { throw BenchError.unzipFailed(process.terminationStatus) }
            return elapsed
        }

        var installs: [Double] = []
        var unzips: [Double] = []
        // The install ends with one `syncfs`, which also flushes whatever else is dirty on the file system: the
        // previous sample's unzip output included. Flushing before every sample, untimed, makes each side pay
        // for its own writes only.
        func settle() { sync() }
        for index in 0..<options.installs {
            if index % 2 == 0 {
                settle()
                installs.append(try verifiedInstall())
                settle()
                unzips.append(try unzip())
            } else {
                settle()
                unzips.append(try unzip())
                settle()
                installs.append(try verifiedInstall())
            }
            options.progress?(
                "install \(index + 1): verified install \(format(installs.last)) ms, unzip \(format(unzips.last)) ms")
        }
        let size = Double(options.installFiles * options.installFileBytes) / 1_000_000
        return BenchFigure(
            scenario: scenario,
            figure: String(
                format: "verified install, %d files (%.0f MB), median of %d", options.installFiles, size,
                options.installs),
            value: median(installs), unit: "ms", baselineName: "unzip -q -o, same zip", baseline: median(unzips),
            better: .lower, targetRatio: 1.2)
    }

    // MARK: Helpers

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

    private static func format(_ value: Double?) -> String { String(format: "%.1f", value ?? 0) }
}
#endif
