#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridPackages
import ZIPFoundation

/// `hybrid bench updates`: binary-delta diffs on real consecutive releases of real web front-ends (fetched by
/// scripts/fetch-update-bench-data.sh into `<data>/<app>/<version>/`, never committed). Per pair, in one run: the
/// bytes of the full package, of today's per-file diff and of the delta diff, against `zstd -19 --patch-from` with
/// the same base for every file; the time to build the delta diff; the time to apply it against a full install of
/// the new version (download excluded); and the heap held at the height of applying it.
public enum DeltaUpdatesBenchmark {
    public struct Options: Sendable {
        /// Holds `<app>/<old>/` and `<app>/<new>/` per app (two SemVer-named directories each).
        public var dataDirectory = URL(fileURLWithPath: "/tmp/hybrid-update-bench")
        /// Timed installs per side.
        public var rounds = 3
        public var zstdPath = "/usr/bin/zstd"
        public var progress: (@Sendable (String) -> Void)?
        public init() {}
    }

    public enum BenchError: Error, CustomStringConvertible {
        case zstdMissing(String)
        case zstdFailed(String)
        case noData(String)
        case zeroBaseline(String)
        case wrongResult(String)

        public var description: String {
            switch self {
            case .zstdMissing(let path):
                "\(path) is missing: the delta is measured against `zstd -19 --patch-from`. Install it (apt-get "
                    + "install -y zstd) or pass --zstd, and run again."
            case .zstdFailed(let why): "zstd failed: \(why)"
            case .noData(let directory):
                "No release pairs under \(directory) (expected <app>/<old version>/ and <app>/<new version>/). "
                    + "Fetch them with scripts/fetch-update-bench-data.sh \(directory)."
            case .zeroBaseline(let what): "the baseline '\(what)' measured 0: the comparison means nothing"
            case .wrongResult(let why): "the delta update gave the wrong result: \(why)"
            }
        }
    }

    struct Pair {
        var app: String
        var old: (version: SemanticVersion, directory: URL)
        var new: (version: SemanticVersion, directory: URL)
    }

    static let scenario = "updates"

    public static func run(_ options: Options = Options()) async throws -> [BenchFigure] {
        guard FileManager.default.isExecutableFile(atPath: options.zstdPath) else {
            throw BenchError.zstdMissing(options.zstdPath)
        }
        let pairs = try findPairs(in: options.dataDirectory)
        guard !pairs.isEmpty else { throw BenchError.noData(options.dataDirectory.path) }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hybrid-bench-updates-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var figures: [BenchFigure] = []
        for pair in pairs {
            figures += try measure(pair, in: root.appendingPathComponent(pair.app), options: options)
        }
        return figures
    }

    static func findPairs(in directory: URL) throws -> [Pair] {
        let manager = FileManager.default
        let apps = ((try? manager.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        var pairs: [Pair] = []
        for app in apps where app != "wheels" {
            let appDirectory = directory.appendingPathComponent(app)
            let versions = ((try? manager.contentsOfDirectory(atPath: appDirectory.path)) ?? [])
                .compactMap { name in SemanticVersion(name).map { ($0, appDirectory.appendingPathComponent(name)) } }
                .sorted { $0.0 < $1.0 }
            guard versions.count >= 2 else { continue }
            // The last two: the newest consecutive pair fetched.
            pairs.append(Pair(app: app, old: versions[versions.count - 2], new: versions[versions.count - 1]))
        }
        return pairs
    }

    static func measure(_ pair: Pair, in directory: URL, options: Options) throws -> [BenchFigure] {
        let manager = FileManager.default
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        let keys = PackageKeyPair.generate()
        let id = "bench.\(pair.app)"
        let label = "\(pair.app) \(pair.old.version)→\(pair.new.version)"
        let oldZip = directory.appendingPathComponent("old.zip")
        let newZip = directory.appendingPathComponent("new.zip")
        for (side, zip) in [(pair.old, oldZip), (pair.new, newZip)] {
            try PackagePacker().pack(
                directory: side.directory,
                options: PackOptions(id: id, version: side.version, serves: ["https://bench.test/\(pair.app)/"]),
                keyPair: keys, to: zip)
        }
        let plainZip = directory.appendingPathComponent("plain.zip")
        let deltaZip = directory.appendingPathComponent("delta.zip")
        var start = ContinuousClock.now
        try PackageDiffBuilder().buildDiff(from: oldZip, to: newZip, keyPair: keys, output: plainZip)
        let plainMs = PackagesBenchmark.milliseconds(.now - start)
        start = .now
        let manifest = try PackageDiffBuilder().buildDiff(
            from: oldZip, to: newZip, keyPair: keys, output: deltaZip, deltas: true)
        let deltaMs = PackagesBenchmark.milliseconds(.now - start)
        let fullBytes = try size(newZip)
        let plainBytes = try size(plainZip)
        let deltaBytes = try size(deltaZip)
        let changed = manifest.diff?.changed ?? []
        let deltaCount = manifest.diff?.deltas?.count ?? 0
        options.progress?(
            "\(label): \(manifest.files.count) files, \(changed.count) changed, \(deltaCount) as deltas; full "
                + "\(fullBytes) B, per-file diff \(plainBytes) B, delta diff \(deltaBytes) B; built in "
                + "\(Int(deltaMs)) ms (per-file \(Int(plainMs)) ms)")

        let zstd = try zstdReference(pair, changed: changed, deltaZip: deltaZip, options: options, in: directory)
        options.progress?("\(label): zstd reference \(zstd.total) B (payload \(zstd.payload) B)")

        // Apply: the delta diff on top of an installed old version, against a full install of the new version
        // on top of the same, each into a fresh store, files synced before the clock starts.
        let version = SemanticVersion(major: 1, minor: 0, patch: 0)
        var round = 0
        func install(_ zip: URL, sampleHeap: Bool = false) throws -> (ms: Double, heap: Int) {
            round += 1
            let storeRoot = directory.appendingPathComponent("store-\(round)")
            defer { try? manager.removeItem(at: storeRoot) }
            let store = try PackageStore(root: storeRoot, trustedKey: keys.verificationKey)
            let installer = PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: version)
            try installer.install(packageAt: oldZip)
            sync()
            let sampler = sampleHeap ? HeapPeakSampler() : nil
            let begin = ContinuousClock.now
            let installed = try installer.install(packageAt: zip)
            let elapsed = PackagesBenchmark.milliseconds(.now - begin)
            let heap = sampler?.stop() ?? 0
            guard installed.version == pair.new.version, store.activeVersion(id) == pair.new.version else {
                throw BenchError.wrongResult("\(zip.lastPathComponent) installed \(installed.version)")
            }
            return (elapsed, heap)
        }
        var deltaSamples: [Double] = []
        var fullSamples: [Double] = []
        for index in 0..<options.rounds {
            // Alternating, and swapping who goes first, so drift in machine load lands on both sides alike.
            if index % 2 == 0 {
                deltaSamples.append(try install(deltaZip).ms)
                fullSamples.append(try install(newZip).ms)
            } else {
                fullSamples.append(try install(newZip).ms)
                deltaSamples.append(try install(deltaZip).ms)
            }
            options.progress?(
                "\(label) apply \(index + 1): delta diff \(Int(deltaSamples.last ?? 0)) ms, full install "
                    + "\(Int(fullSamples.last ?? 0)) ms")
        }
        let heap = try install(deltaZip, sampleHeap: true).heap
        let largest = manifest.files.map(\.size).max() ?? 0

        for (what, value) in [
            ("per-file diff", plainBytes), ("full package", fullBytes), ("zstd reference", zstd.total),
            ("publish time", Int(plainMs)), ("full install", Int(PackagesBenchmark.median(fullSamples))),
            ("largest file", Int(largest)),
        ] where value == 0 {
            throw BenchError.zeroBaseline("\(label): \(what)")
        }
        let rounds = options.rounds
        return [
            BenchFigure(
                scenario: scenario,
                figure: "\(label): delta diff (\(deltaCount) of \(changed.count) changed files as deltas)",
                value: Double(deltaBytes), unit: "bytes", baselineName: "today's per-file diff",
                baseline: Double(plainBytes), better: .lower, targetRatio: 0.3),
            BenchFigure(
                scenario: scenario, figure: "\(label): delta diff",
                value: Double(deltaBytes), unit: "bytes",
                baselineName: "zstd -19 --patch-from, same bases, same container",
                baseline: Double(zstd.total), better: .lower, targetRatio: 1.2),
            BenchFigure(
                scenario: scenario, figure: "\(label): today's per-file diff",
                value: Double(plainBytes), unit: "bytes", baselineName: "full package",
                baseline: Double(fullBytes), better: .lower),
            BenchFigure(
                scenario: scenario, figure: "\(label): delta diff",
                value: Double(deltaBytes), unit: "bytes", baselineName: "full package",
                baseline: Double(fullBytes), better: .lower),
            BenchFigure(
                scenario: scenario, figure: "\(label): apply the delta diff, median of \(rounds)",
                value: PackagesBenchmark.median(deltaSamples), unit: "ms",
                baselineName: "full install of the new version",
                baseline: PackagesBenchmark.median(fullSamples), better: .lower, targetRatio: 1.5),
            BenchFigure(
                scenario: scenario, figure: "\(label): heap peak applying the delta diff",
                value: Double(heap), unit: "bytes", baselineName: "2× the largest file",
                baseline: Double(2 * largest), better: .lower, targetRatio: 1.0),
            BenchFigure(
                scenario: scenario, figure: "\(label): build the delta diff",
                value: deltaMs, unit: "ms", baselineName: "build today's per-file diff",
                baseline: plainMs, better: .lower),
        ]
    }

    /// `zstd -19 --patch-from` per changed file, against the same base the delta encoder would use (or alone when
    /// that is smaller or there is none), plus what the delta diff spends beside its payload (manifest, signature,
    /// zip headers): the reference as if zstd's outputs travelled in the same container.
    static func zstdReference(
        _ pair: Pair, changed: [String], deltaZip: URL, options: Options, in directory: URL
    ) throws -> (total: Int, payload: Int) {
        let manager = FileManager.default
        var oldFiles: [String: [UInt8]] = [:]
        if let walker = manager.enumerator(at: pair.old.directory, includingPropertiesForKeys: [.isRegularFileKey]) {
            let prefix = pair.old.directory.standardizedFileURL.path + "/"
            for case let url as URL in walker
            where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                let path = String(url.standardizedFileURL.path.dropFirst(prefix.count))
                oldFiles[path] = [UInt8](try Data(contentsOf: url))
            }
        }
        let matcher = DeltaBaseMatcher(oldFiles: oldFiles)
        let output = directory.appendingPathComponent("zstd-out")
        var payload = 0
        for path in changed {
            let newFile = pair.new.directory.appendingPathComponent(path)
            let bytes = [UInt8](try Data(contentsOf: newFile))
            try runZstd(options.zstdPath, ["-19", "-q", "-f", newFile.path, "-o", output.path])
            var best = try size(output)
            if let base = matcher.base(for: path, bytes: bytes) {
                let baseFile = pair.old.directory.appendingPathComponent(base)
                try runZstd(
                    options.zstdPath,
                    ["-19", "-q", "-f", "--patch-from=\(baseFile.path)", newFile.path, "-o", output.path])
                best = min(best, try size(output))
            }
            payload += best
        }
        try? manager.removeItem(at: output)
        // The delta diff's own payload: every content entry as stored in the zip.
        let archive = try Archive(url: deltaZip, accessMode: .read)
        var deltaPayload = 0
        for entry in archive where entry.path.hasPrefix("content/") { deltaPayload += Int(entry.compressedSize) }
        let container = try size(deltaZip) - deltaPayload
        return (payload + container, payload)
    }

    static func runZstd(_ path: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        // zstd -19 --patch-from prints tuning advice for every file; a failure shows in the exit status.
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError.zstdFailed(
                "\(path) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }

    static func size(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
    }
}
#endif
