import Foundation
import HybridKit
import HybridPackages
import HybridUpdateServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `hybrid serve` as the development server of a release tree: the same files and answers a static host gives.
@Suite("Release tree served by hybrid serve")
struct ReleaseTreeServeTests {
    static let id = ReleaseTreeFixture.id

    @Test func servesTheTreeLikeAStaticHost() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0", blobSize: 50_000)])
        try await fixture.publish([try fixture.pack("2.0.0", blobSize: 50_000)])
        let server = try await UpdateServer.start(directory: fixture.tree)
        defer { server.stop() }

        let store = try fixture.store()
        let client = try fixture.client(base: server.baseURL)
        let outcome = try await fixture.updater(store, client: client).update(Self.id)
        #expect(outcome == .updated(from: nil, to: try ReleaseTreeFixture.version("2.0.0"), viaDiff: false))
        #expect(client.reader.acceptedSequence(for: Self.id) == 2)

        // The index revalidates: its tag is the SHA-256 of its bytes.
        let tag = try #require(client.reader.entityTag(for: Self.id))
        #expect(tag.utf8.count == 66 && tag.hasPrefix("\"") && tag.dropFirst().dropLast().allSatisfy(\.isHexDigit))
        var request = URLRequest(url: client.indexURL(for: Self.id))
        request.setValue(tag, forHTTPHeaderField: "If-None-Match")
        let session = ChannelUpdateClient.uncachedSession()
        let (_, notModified) = try await session.data(for: request)
        #expect((notModified as? HTTPURLResponse)?.statusCode == 304)
        #expect(try await client.currentIndex(for: Self.id)?.sequence == 2)
        // A re-signed index of the same length gets another tag at once (not after a second, as with mtime tags).
        try await fixture.publish([], ["--refresh"])
        #expect(try await client.currentIndex(for: Self.id)?.sequence == 3)
        #expect(client.reader.entityTag(for: Self.id) != tag)

        // Files are immutable and ranged.
        let index = try #require(try await client.currentIndex(for: Self.id))
        let full = try #require(index.releases.first?.full)
        var ranged = URLRequest(url: try #require(URL(string: full.url, relativeTo: client.indexURL(for: Self.id))))
        ranged.setValue("bytes=10-19", forHTTPHeaderField: "Range")
        let (bytes, partial) = try await session.data(for: ranged)
        let http = try #require(partial as? HTTPURLResponse)
        #expect(http.statusCode == 206 && bytes.count == 10)
        #expect(http.value(forHTTPHeaderField: "ETag") == "\"\(full.sha256)\"")
        #expect(http.value(forHTTPHeaderField: "Cache-Control")?.contains("immutable") == true)

        // Names that could leave the tree, or are not content names, are not found.
        for path in [
            "files/..%2Fchannels%2Fproduction%2F\(Self.id).json", "files/\(String(repeating: "A", count: 64)).zip",
            "files/\(full.sha256).json", "channels/..%2F..%2Ffiles/x.json", "channels/production/..json",
            "channels/production/\(Self.id).zip", "channels/.hidden/\(Self.id).json",
            "files/\(String(full.sha256.dropLast()))g.zip",
        ] {
            let url = try #require(URL(string: path, relativeTo: server.baseURL))
            let (_, response) = try await session.data(from: url)
            #expect((response as? HTTPURLResponse)?.statusCode == 404, "\(path)")
        }
    }
}
