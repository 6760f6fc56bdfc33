import Foundation
import HybridPackages
import HybridKit
import HybridUpdateServer
import Testing

@Suite("Updates over HTTP")
struct UpdateEndToEndTests {
    @Test func installsFullThenDiff() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let store = try fixture.openStore()
        let client = RecordingClient(HTTPUpdateClient(baseURL: server.baseURL))
        let updater = PackageUpdater(installer: fixture.installer(store), client: client, chunkSize: 1000)

        let first = try await updater.update(ServerFixture.id)
        #expect(first == .updated(from: nil, to: SemanticVersion(major: 1, minor: 0, patch: 0), viaDiff: false))

        try fixture.publish(fixture.full2, fixture.diff12)
        let second = try await updater.update(ServerFixture.id)
        #expect(
            second
                == .updated(
                    from: SemanticVersion(major: 1, minor: 0, patch: 0),
                    to: SemanticVersion(major: 2, minor: 0, patch: 0), viaDiff: true))
        // Only the diff's bytes were fetched for the second update, far fewer than the full package's.
        let diffSize = Int64(try Data(contentsOf: fixture.diff12).count)
        let fullSize = Int64(try Data(contentsOf: fixture.full2).count)
        #expect(diffSize < fullSize)

        let active = try #require(store.activePackage(ServerFixture.id))
        #expect(active.version == SemanticVersion(major: 2, minor: 0, patch: 0))
        let paths = Set(active.manifest.files.map(\.path))
        #expect(paths.contains("new.js") && !paths.contains("old.js"))
        #expect(try await updater.update(ServerFixture.id) == .upToDate(active.version))
    }

    @Test func interruptedDownloadResumesWhereItStopped() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full2)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let http = HTTPUpdateClient(baseURL: server.baseURL)
        let release = try #require(try await http.latestRelease(for: ServerFixture.id))
        let downloads = fixture.root.appendingPathComponent("downloads")

        // The connection dies after two 512-byte ranges.
        let dying = RecordingClient(http, failAfter: 2)
        let firstTry = PackageDownloader(
            client: dying, directory: downloads, chunkSize: 512, maxAttempts: 1)
        await #expect(throws: DownloadError.self) { try await firstTry.download(release.full) }
        let partial = firstTry.partialURL(for: release.full)
        let kept = try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber
        #expect(kept?.int64Value == 1024)

        // A new downloader (a new process, say) continues from byte 1024 instead of starting over.
        let resumed = RecordingClient(http)
        let secondTry = PackageDownloader(client: resumed, directory: downloads, chunkSize: 512)
        let file = try await secondTry.download(release.full)
        #expect(resumed.ranges.withLock { $0.first?.lowerBound } == 1024)
        #expect(try Data(contentsOf: file) == Data(contentsOf: fixture.full2))
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    @Test func rangePastTheEndIsNoMoreBytes() async throws {
        let fixture = try ServerFixture()
        try fixture.publish(fixture.full1)
        let server = try await fixture.startServer()
        defer { server.stop() }
        let http = HTTPUpdateClient(baseURL: server.baseURL)
        let release = try #require(try await http.latestRelease(for: ServerFixture.id))
        let size = release.full.size
        // 416 from the server reads as "nothing more", which the downloader reports as a truncated source.
        #expect(try await http.fetch(release.full, range: size..<(size + 10)).isEmpty)
        let tail = try await http.fetch(release.full, range: (size - 4)..<(size + 10))
        #expect(tail.count == 4)
        #expect(try await http.latestRelease(for: "com.unknown") == nil)
    }
}
