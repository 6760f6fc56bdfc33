#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridPackages
import HybridTestServers
import Synchronization

/// The update figures of `hybrid bench packages`: one release published with `ReleasePublisher` to a release tree,
/// served by the loopback static server, and fetched by `ChannelUpdateClient` + `PackageUpdater` two ways in the
/// same run: by the diff the tree offers, and as the full package of the same release (the baseline).
enum UpdateBenchmark {
    /// Hides a release's diffs, so the updater downloads the full package.
    struct FullOnly: UpdateClient {
        let inner: ChannelUpdateClient
        func latestRelease(for id: String) async throws -> PackageRelease? {
            guard let release = try await inner.latestRelease(for: id) else { return nil }
            return PackageRelease(id: release.id, version: release.version, full: release.full)
        }
        func fetch(_ artifact: PackageArtifact, range: Range<Int64>) async throws -> [UInt8] {
            try await inner.fetch(artifact, range: range)
        }
    }

    static let id = "test.bench.update"

    /// `files` files of `fileBytes`; the new version changes one file in twenty.
    static func run(
        in directory: URL, keys: PackageKeyPair, files: Int, fileBytes: Int, rounds: Int,
        progress: (@Sendable (String) -> Void)?
    ) async throws -> [BenchFigure] {
        let manager = FileManager.default
        let old = directory.appendingPathComponent("v1")
        try BenchSite.writeFiles(to: old, count: files, size: fileBytes)
        let new = directory.appendingPathComponent("v2")
        try manager.copyItem(at: old, to: new)
        for index in stride(from: 0, to: files, by: 20) {
            let file = new.appendingPathComponent("d\(index / 100)/f\(index).bin")
            var bytes = try Data(contentsOf: file)
            bytes.append(Data("changed in 2.0.0".utf8))
            try bytes.write(to: file)
        }
        let one = SemanticVersion(major: 1, minor: 0, patch: 0)
        let two = SemanticVersion(major: 2, minor: 0, patch: 0)
        let zip1 = directory.appendingPathComponent("v1.zip")
        let zip2 = directory.appendingPathComponent("v2.zip")
        for (site, version, zip) in [(old, one, zip1), (new, two, zip2)] {
            try PackagePacker().pack(
                directory: site, options: PackOptions(id: id, version: version, serves: ["https://update.test/"]),
                keyPair: keys, to: zip)
        }
        let releaseKey = PackageKeyPair.generate()
        let tree = directory.appendingPathComponent("tree")
        try ReleasePublisher(packageKey: keys, releaseKey: releaseKey).publish(
            [zip1, zip2], to: tree, options: ReleasePublisher.Options())
        let server = try await LoopbackServer.start(serving: tree)
        defer { server.stop() }
        let base = URL(string: server.origin + "/") ?? tree

        var round = 0
        /// One update from an installed 1.0.0 to 2.0.0: milliseconds and bytes downloaded.
        func update(viaDiff: Bool) async throws -> (ms: Double, bytes: Int64) {
            round += 1
            let storeRoot = directory.appendingPathComponent("store-\(round)")
            defer { try? manager.removeItem(at: storeRoot) }
            let store = try PackageStore(root: storeRoot, trustedKey: keys.verificationKey)
            let installer = PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: one)
            try installer.install(packageAt: zip1)
            let reader = try ReleaseChannelReader(
                storeRoot: storeRoot,
                configuration: ReleaseChannelConfiguration(releaseKey: releaseKey.verificationKey, hostVersion: one))
            let channel = ChannelUpdateClient(baseURL: base, reader: reader)
            let client: any UpdateClient = viaDiff ? channel : FullOnly(inner: channel)
            let downloaded = BytesCounter()
            sync()
            let start = ContinuousClock.now
            let outcome = try await PackageUpdater(installer: installer, client: client).update(id) { event in
                if event.phase == .downloading { downloaded.set(event.completedBytes) }
            }
            let elapsed = PackagesBenchmark.milliseconds(.now - start)
            guard outcome == .updated(from: one, to: two, viaDiff: viaDiff) else {
                throw PackagesBenchmark.BenchError.updateFailed("update went \(outcome), expected viaDiff \(viaDiff)")
            }
            return (elapsed, downloaded.value)
        }

        var diffs: [(ms: Double, bytes: Int64)] = []
        var fulls: [(ms: Double, bytes: Int64)] = []
        for index in 0..<rounds {
            // Alternating which side goes first, so neither always runs on a warmer cache.
            if index % 2 == 0 {
                diffs.append(try await update(viaDiff: true))
                fulls.append(try await update(viaDiff: false))
            } else {
                fulls.append(try await update(viaDiff: false))
                diffs.append(try await update(viaDiff: true))
            }
            progress?(
                "update \(index + 1): by diff \(diffs.last?.ms ?? 0) ms (\(diffs.last?.bytes ?? 0) B), "
                    + "full \(fulls.last?.ms ?? 0) ms (\(fulls.last?.bytes ?? 0) B)")
        }
        let what = "\(files) files, 1 in 20 changed"
        return [
            BenchFigure(
                scenario: PackagesBenchmark.scenario, figure: "update by diff, bytes downloaded (\(what))",
                value: Double(diffs.last?.bytes ?? 0), unit: "bytes",
                baselineName: "full download of the same release", baseline: Double(fulls.last?.bytes ?? 0),
                better: .lower),
            BenchFigure(
                scenario: PackagesBenchmark.scenario,
                figure: "update by diff, download + install over loopback HTTP (\(what)), median of \(rounds)",
                value: PackagesBenchmark.median(diffs.map(\.ms)), unit: "ms",
                baselineName: "full download + install of the same release",
                baseline: PackagesBenchmark.median(fulls.map(\.ms)), better: .lower),
        ]
    }

    /// The last downloading figure a progress handler saw.
    final class BytesCounter: Sendable {
        // Written by the progress handler, read after the update returns.
        private let bytes = Atomic<Int64>(0)
        func set(_ value: Int64) { bytes.store(value, ordering: .sequentiallyConsistent) }
        var value: Int64 { bytes.load(ordering: .sequentiallyConsistent) }
    }
}
#endif
