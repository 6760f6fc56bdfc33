import Foundation
import HybridPackages
import HybridTestSupport
import Testing

/// Updates by binary delta end to end: `hybrid-tools publish` writes a delta diff beside the plain one, nginx serves
/// the tree, `ChannelUpdateClient` + `PackageUpdater` take it. A truncated, corrupted or hostile delta never
/// activates anything: the updater refuses with a typed error (the old version keeps serving) or falls back to the
/// full package.
@Suite("Delta updates on nginx", .serialized)
struct DeltaUpdateNginxTests {
    static let id = ReleaseTreeFixture.id

    @Test func updateByDeltaServesTheNewVersionByteForByte() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try Self.pack(fixture, version: 1)])
        let store = try fixture.store()
        let updater = fixture.updater(store, client: try fixture.client())
        _ = try await updater.update(Self.id)
        try await fixture.publish([try Self.pack(fixture, version: 2)])

        let index = try #require(try await fixture.client(storeName: "peek").currentIndex(for: Self.id))
        let release = try #require(index.releases.first { $0.version == "2.0.0" })
        let delta = try #require(release.deltaDiffs?.first { $0.from == "1.0.0" })
        let plain = try #require(release.diffs.first { $0.from == "1.0.0" })
        #expect(delta.size * 3 < plain.size, "delta diff \(delta.size) B, per-file diff \(plain.size) B")

        let outcome = try await updater.update(Self.id)
        #expect(
            outcome
                == .updated(
                    from: try ReleaseTreeFixture.version("1.0.0"), to: try ReleaseTreeFixture.version("2.0.0"),
                    viaDiff: true))
        let log = fixture.nginx.logLines()
        #expect(log.contains { $0.contains("/files/\(delta.sha256).zip") })
        #expect(!log.contains { $0.contains("/files/\(plain.sha256).zip") })
        #expect(!log.contains { $0.contains("/files/\(release.full.sha256).zip") })
        try Self.expectServing(store, version: 2)
    }

    enum Damage: String, CaseIterable, Sendable { case truncated, corrupted, hostile }

    @Test(arguments: Damage.allCases)
    func damagedDeltaNeverActivates(_ damage: Damage) async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try Self.pack(fixture, version: 1)])
        let store = try fixture.store()
        let updater = fixture.updater(store, client: try fixture.client(), maxAttempts: 1)
        _ = try await updater.update(Self.id)
        try await fixture.publish([try Self.pack(fixture, version: 2)])
        let index = try #require(try await fixture.client(storeName: "peek").currentIndex(for: Self.id))
        let release = try #require(index.releases.first { $0.version == "2.0.0" })
        let delta = try #require(release.deltaDiffs?.first)
        let file = ReleaseTreeLayout(root: fixture.tree).file(sha256: delta.sha256)
        let bytes = [UInt8](try Data(contentsOf: file))

        switch damage {
        case .truncated:
            // The mirror serves half the file: the download fails, nothing installs, version 1 keeps serving.
            try Data(bytes.prefix(bytes.count / 2)).write(to: file)
            await #expect(throws: DownloadError.self) { try await updater.update(Self.id) }
            #expect(store.activeVersion(Self.id) == (try ReleaseTreeFixture.version("1.0.0")))
            try Self.expectServing(store, version: 1)
            return
        case .corrupted:
            // Same size, other bytes: its SHA-256 in the signed index fails, the full package installs instead.
            var damaged = bytes
            damaged[damaged.count / 2] ^= 0xff
            try Data(damaged).write(to: file)
        case .hostile:
            // A delta whose hash the (compromised or buggy) publisher signed: only the decoder stands in the way.
            let hostile = try Self.publishHostileDelta(fixture, index: index, original: bytes)
            // Installed directly, it is the decoder's typed refusal (not some earlier check) that stops it.
            let other = try fixture.store("direct")
            let installer = PackageInstaller(
                store: other, trustedKey: fixture.packageKey.verificationKey,
                containerVersion: SemanticVersion(major: 1, minor: 0, patch: 0))
            try installer.install(packageAt: try Self.pack(fixture, version: 1))
            #expect {
                try installer.install(packageAt: hostile)
            } throws: { error in
                guard case PackageError.deltaInvalid(_, .invalidControl) = error else { return false }
                return true
            }
            #expect(other.activeVersion(Self.id) == (try ReleaseTreeFixture.version("1.0.0")))
        }
        let outcome = try await updater.update(Self.id)
        #expect(
            outcome
                == .updated(
                    from: try ReleaseTreeFixture.version("1.0.0"), to: try ReleaseTreeFixture.version("2.0.0"),
                    viaDiff: false))
        #expect(fixture.nginx.logLines().contains { $0.contains("/files/\(release.full.sha256).zip") })
        try Self.expectServing(store, version: 2)
    }

    // MARK: Helpers

    /// Replaces the body of the delta of `assets/index-<hash>.js` with records seeking outside the base (the zip
    /// entry's CRC-32 and sizes fixed so only the decoder can object), stores it under its SHA-256 and signs a new
    /// index pointing 2.0.0's delta diff at it.
    @discardableResult
    static func publishHostileDelta(_ fixture: ReleaseTreeFixture, index: ReleaseIndex, original: [UInt8]) throws
        -> URL
    {
        var image = try ZipImage(parsing: original)
        let at = try #require(image.entries.firstIndex { $0.path == "content/assets/index-Q2w3E4r5.js" })
        let header = Array(image.entries[at].data.prefix(28))
        // Add 0, insert 1 byte, seek by Int64.min: three LEB128 varints (the seek zigzag-encoded, all ones).
        let records: [UInt8] = [0, 1] + [UInt8](repeating: 0xff, count: 9) + [0x01, 65]
        // One stored deflate block (BFINAL, BTYPE 00), so no compressor is needed here.
        let body: [UInt8] = [1] + le16(UInt16(records.count)) + le16(~UInt16(records.count)) + records
        let delta = header + le(UInt64(body.count)) + body
        image.entries[at].data = delta
        image.entries[at].uncompressedSize = UInt64(delta.count)
        image.entries[at].crc32 = crc32(delta)
        let hostile = image.write(.classic).bytes
        let scratch = fixture.url("hostile-delta.zip")
        try Data(hostile).write(to: scratch)
        let sha = try ServerFixture.sha256(scratch)
        let published = ReleaseTreeLayout(root: fixture.tree).file(sha256: sha)
        try FileManager.default.copyItem(at: scratch, to: published)
        var changed = index
        changed.sequence += 1
        for (number, release) in changed.releases.enumerated() where release.version == "2.0.0" {
            changed.releases[number].deltaDiffs = [
                ReleaseDiff(
                    from: "1.0.0", url: ReleaseTreeLayout.relativeFileURL(sha256: sha), size: Int64(hostile.count),
                    sha256: sha)
            ]
        }
        try SignedReleaseIndex.sign(changed, with: fixture.releaseKey).encoded().write(to: fixture.indexFile())
        return scratch
    }

    static func expectServing(_ store: PackageStore, version: Int) throws {
        let active = try #require(store.activePackage(id))
        #expect(active.version == SemanticVersion(major: version, minor: 0, patch: 0))
        for (path, text) in site(version: version) {
            #expect(try Data(contentsOf: active.fileURL(for: path)) == Data(text.utf8), "\(path)")
        }
        #expect(active.manifest.files.count == site(version: version).count)
    }

    static func pack(_ fixture: ReleaseTreeFixture, version: Int) throws -> URL {
        let directory = fixture.url("delta-site-\(version)")
        for (path, text) in site(version: version) {
            let file = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        let output = fixture.url("delta-shop-\(version).zip")
        try PackagePacker().pack(
            directory: directory,
            options: PackOptions(
                id: id, version: SemanticVersion(major: version, minor: 0, patch: 0),
                serves: ["https://shop.example.com/app/"]),
            keyPair: fixture.packageKey, to: output)
        return output
    }

    /// A front-end build: every bundle renamed by its content hash in version 2, with small edits inside.
    static func site(version: Int) -> [String: String] {
        let indexHash = version == 1 ? "A1b2C3d4" : "Q2w3E4r5"
        let vendorHash = version == 1 ? "1a2b3c4d" : "9e8d7c6b"
        return [
            "index.html": "<html><script src=\"assets/index-\(indexHash).js\"></script> v\(version)</html>",
            "assets/index-\(indexHash).js": bundle(seed: 1, imports: vendorHash, edit: "v\(version)"),
            "assets/vendor-\(vendorHash).js": bundle(seed: 2, imports: indexHash, edit: "v\(version)"),
            "assets/site.css": "body{margin:0}",
        ]
    }

    static func bundle(seed: UInt64, imports: String, edit: String) -> String {
        MinifiedBundle.text(seed: seed, importing: "vendor-\(imports).js", edit: edit)
    }

    static func le(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
