import Foundation
import HybridPackages
import Testing

@Suite struct DownloadUpdateTests {
    @Test func downloadSurvivesFlakyConnections() async throws {
        let fixture = try Fixture()
        let client = InMemoryUpdateClient()
        let artifact = try client.publish(try fixture.pack("1.0.0"), location: "v1")
        client.state.withLock { $0.failEvery = 2 }
        let downloader = PackageDownloader(client: client, directory: fixture.url("dl"), chunkSize: 97)
        let file = try await downloader.download(artifact)
        #expect(CryptoHex.sha256(try Data(contentsOf: file)) == artifact.sha256)
    }

    @Test func interruptedDownloadResumesWhereItStopped() async throws {
        let fixture = try Fixture()
        let client = InMemoryUpdateClient()
        let artifact = try client.publish(try fixture.pack("1.0.0"), location: "v1")
        let half = artifact.size / 2
        client.state.withLock { $0.truncateAt = half }
        let directory = fixture.url("dl")
        let first = PackageDownloader(
            client: client, directory: directory, chunkSize: 100, maxAttempts: 2)
        await #expect(
            throws: DownloadError.truncated(location: "v1", received: half, expected: artifact.size)
        ) {
            try await first.download(artifact)
        }
        let partialSize = try FileManager.default.attributesOfItem(
            atPath: first.partialURL(for: artifact).path)[.size]
        #expect((partialSize as? Int).map(Int64.init) == half)

        client.state.withLock {
            $0.truncateAt = nil
            $0.requestedRanges = []
        }
        let second = PackageDownloader(client: client, directory: directory, chunkSize: 100)
        let file = try await second.download(artifact)
        #expect(client.state.withLock { $0.requestedRanges.first?.lowerBound } == half)
        #expect(CryptoHex.sha256(try Data(contentsOf: file)) == artifact.sha256)
    }

    @Test func corruptDownloadIsDiscarded() async throws {
        let fixture = try Fixture()
        let client = InMemoryUpdateClient()
        var artifact = try client.publish(try fixture.pack("1.0.0"), location: "v1")
        artifact.sha256 = String(repeating: "0", count: 64)
        let downloader = PackageDownloader(client: client, directory: fixture.url("dl"))
        await #expect(throws: DownloadError.checksumMismatch(location: "v1")) {
            try await downloader.download(artifact)
        }
        #expect(!FileManager.default.fileExists(atPath: downloader.partialURL(for: artifact).path))
    }

    @Test func updaterPrefersADiffAndRefusesATruncatedDownload() async throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        let installer = fixture.installer(store)
        let v1 = try fixture.pack("1.0.0")
        try installer.install(packageAt: v1)
        let client = InMemoryUpdateClient()
        let updater = PackageUpdater(installer: installer, client: client, chunkSize: 128)
        #expect(try await updater.update("com.example.shop") == .upToDate("1.0.0"))

        let v2 = try fixture.pack("2.0.0")
        let diff = fixture.url("diff.zip")
        try PackageDiffBuilder().buildDiff(from: v1, to: v2, keyPair: fixture.keyPair, output: diff)
        client.setRelease(
            PackageRelease(
                id: "com.example.shop", version: "2.0.0", full: try client.publish(v2, location: "full-2"),
                diffs: ["1.0.0": try client.publish(diff, location: "diff-1-2")]))
        #expect(try await updater.checkForUpdate("com.example.shop")?.version == "2.0.0")

        // The source dies half way: nothing changes.
        client.state.withLock { $0.truncateAt = 300 }
        await #expect(throws: DownloadError.self) { try await updater.update("com.example.shop") }
        #expect(store.activeVersion("com.example.shop") == "1.0.0")

        client.state.withLock { $0.truncateAt = nil }
        let outcome = try await updater.update("com.example.shop")
        #expect(outcome == .updated(from: "1.0.0", to: "2.0.0", viaDiff: true))
        #expect(store.activeVersion("com.example.shop") == "2.0.0")
    }
}
