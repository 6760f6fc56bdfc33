import Foundation
import HybridPackages
import HybridTestSupport
import Testing

/// Diff packages with binary deltas through the builder, the installer and the updater: renamed content-hashed
/// bundles travel as deltas, the result is the new version byte for byte, and a damaged or hostile delta is a typed
/// refusal (installer) or a fall back to the full package (updater) with the installed version still serving.
@Suite("Delta diffs")
struct DeltaDiffTests {
    static let id = "com.example.shop"

    @Test("a delta diff rebuilds the new version byte for byte from renamed, hashed bundles")
    func deltaDiffInstalls() throws {
        let fixture = try Fixture()
        let (v1, v2, files2) = try Self.twoVersions(fixture)
        let diff = fixture.url("delta.zip")
        let manifest = try PackageDiffBuilder().buildDiff(
            from: v1, to: v2, keyPair: fixture.keyPair, output: diff, deltas: true)
        let deltas = try #require(manifest.diff?.deltas)
        #expect(manifest.formatVersion == PackageManifest.deltaFormatVersion)
        #expect(deltas.contains { $0.path == "assets/index-Q2w3E4r5.js" && $0.base == "assets/index-A1b2C3d4.js" })
        #expect(deltas.contains { $0.path == "static/js/main.9e8d7c6b.js" && $0.base == "static/js/main.1a2b3c4d.js" })
        let plain = fixture.url("plain.zip")
        let plainManifest = try PackageDiffBuilder().buildDiff(
            from: v1, to: v2, keyPair: fixture.keyPair, output: plain, deltas: false)
        #expect(plainManifest.formatVersion == PackageManifest.currentFormatVersion)
        #expect(plainManifest.diff?.deltas == nil)
        let deltaSize = try Self.size(diff)
        let plainSize = try Self.size(plain)
        #expect(deltaSize * 3 < plainSize, "delta diff \(deltaSize) bytes, plain diff \(plainSize)")

        let store = try fixture.openStore()
        let installer = fixture.installer(store)
        try installer.install(packageAt: v1)
        let installed = try installer.install(packageAt: diff)
        #expect(store.activeVersion(Self.id) == "2.0.0")
        for (path, text) in files2 {
            #expect(try Data(contentsOf: installed.fileURL(for: path)) == Data(text.utf8), "\(path)")
        }
        // Installed from a delta diff, the version binds later diffs like one installed whole.
        let full = try PackageVerifier(trustedKey: fixture.keyPair.verificationKey).verify(packageAt: v2)
        #expect(installed.manifest.contentDigest == full.contentDigest)
    }

    @Test(
        "a truncated, corrupted or hostile delta is refused with a typed error and version 1 keeps serving",
        arguments: DeltaDamage.allCases)
    func damagedDeltaRefused(damage: DeltaDamage) throws {
        let fixture = try Fixture()
        let (v1, v2, files1) = try Self.twoVersionsKeepingOld(fixture)
        let diff = fixture.url("delta.zip")
        try PackageDiffBuilder().buildDiff(from: v1, to: v2, keyPair: fixture.keyPair, output: diff, deltas: true)
        let damaged = try Self.damage(diff, damage, fixture: fixture)
        let store = try fixture.openStore()
        let installer = fixture.installer(store)
        try installer.install(packageAt: v1)
        #expect {
            try installer.install(packageAt: damaged)
        } throws: { error in
            guard case PackageError.deltaInvalid(let path, _) = error else { return false }
            return path == "assets/index-Q2w3E4r5.js"
        }
        #expect(store.activeVersion(Self.id) == "1.0.0")
        #expect(!store.installedVersions(Self.id).contains("2.0.0"))
        let active = try store.installedPackage(Self.id, version: "1.0.0")
        for (path, text) in files1 {
            #expect(try Data(contentsOf: active.fileURL(for: path)) == Data(text.utf8), "\(path)")
        }
    }

    @Test("hybrid verify checks a delta diff as far as it can without the base")
    func verifierChecksDeltas() throws {
        let fixture = try Fixture()
        let (v1, v2, _) = try Self.twoVersions(fixture)
        let diff = fixture.url("delta.zip")
        try PackageDiffBuilder().buildDiff(from: v1, to: v2, keyPair: fixture.keyPair, output: diff, deltas: true)
        let verifier = PackageVerifier(trustedKey: fixture.keyPair.verificationKey)
        #expect(try verifier.verify(packageAt: diff).diff?.deltas?.isEmpty == false)
        for damage in [DeltaDamage.truncated, .wrongSize] {
            let damaged = try Self.damage(diff, damage, fixture: fixture)
            #expect("\(damage)") {
                try verifier.verify(packageAt: damaged)
            } throws: { error in
                guard case PackageError.deltaInvalid = error else { return false }
                return true
            }
        }
    }

    @Test("the updater prefers the delta diff and falls back to the full package when the delta is bad")
    func updaterFallsBack() async throws {
        let fixture = try Fixture()
        let (v1, v2, files2) = try Self.twoVersions(fixture)
        let store = try fixture.openStore()
        let installer = fixture.installer(store)
        try installer.install(packageAt: v1)
        let plain = fixture.url("plain.zip")
        try PackageDiffBuilder().buildDiff(from: v1, to: v2, keyPair: fixture.keyPair, output: plain)
        let delta = fixture.url("delta.zip")
        try PackageDiffBuilder().buildDiff(from: v1, to: v2, keyPair: fixture.keyPair, output: delta, deltas: true)
        let hostile = try Self.damage(delta, .hostileSeek, fixture: fixture)
        let client = InMemoryUpdateClient()
        let full = try client.publish(v2, location: "full-2")
        client.setRelease(
            PackageRelease(
                id: Self.id, version: "2.0.0", full: full,
                diffs: ["1.0.0": try client.publish(plain, location: "plain-1-2")],
                deltaDiffs: ["1.0.0": try client.publish(hostile, location: "delta-1-2")]))
        let updater = PackageUpdater(installer: installer, client: client)
        let outcome = try await updater.update(Self.id)
        #expect(outcome == .updated(from: "1.0.0", to: "2.0.0", viaDiff: false))
        let installed = try store.installedPackage(Self.id, version: "2.0.0")
        for (path, text) in files2 {
            #expect(try Data(contentsOf: installed.fileURL(for: path)) == Data(text.utf8), "\(path)")
        }
    }

    @Test("the updater installs a good delta diff")
    func updaterUsesDelta() async throws {
        let fixture = try Fixture()
        let (v1, v2, _) = try Self.twoVersions(fixture)
        let store = try fixture.openStore()
        let installer = fixture.installer(store)
        try installer.install(packageAt: v1)
        let delta = fixture.url("delta.zip")
        try PackageDiffBuilder().buildDiff(from: v1, to: v2, keyPair: fixture.keyPair, output: delta, deltas: true)
        let client = InMemoryUpdateClient()
        client.setRelease(
            PackageRelease(
                id: Self.id, version: "2.0.0", full: try client.publish(v2, location: "full-2"),
                deltaDiffs: ["1.0.0": try client.publish(delta, location: "delta-1-2")]))
        let outcome = try await PackageUpdater(installer: installer, client: client).update(Self.id)
        #expect(outcome == .updated(from: "1.0.0", to: "2.0.0", viaDiff: true))
        #expect(client.state.withLock { state in state.requestedRanges.count } > 0)
    }

    @Test("a manifest with deltas must declare format 2, and format 3 is refused")
    func formatGuard() throws {
        let fixture = try Fixture()
        let (v1, v2, _) = try Self.twoVersions(fixture)
        let diff = fixture.url("delta.zip")
        var manifest = try PackageDiffBuilder().buildDiff(
            from: v1, to: v2, keyPair: fixture.keyPair, output: diff, deltas: true)
        manifest.formatVersion = 1
        #expect(throws: PackageError.self) { try manifest.validate() }
        manifest.formatVersion = 3
        #expect(throws: PackageError.self) { try manifest.validate() }
    }

    // MARK: Fixtures

    enum DeltaDamage: String, CaseIterable, Sendable {
        case truncated, corrupted, hostileSeek, wrongSize
    }

    /// Replaces the delta of `assets/index-Q2w3E4r5.js` in `diff` (the manifest and its signature stay valid: the
    /// signature does not cover delta bytes, only the rebuilt file's SHA-256).
    static func damage(_ diff: URL, _ damage: DeltaDamage, fixture: Fixture) throws -> URL {
        try fixture.rewrite(diff, as: "damaged-\(damage.rawValue).zip") { entries in
            guard let at = entries.firstIndex(where: { $0.path == "content/assets/index-Q2w3E4r5.js" }) else { return }
            var bytes = [UInt8](entries[at].data)
            switch damage {
            case .truncated: bytes = Array(bytes.prefix(bytes.count / 2))
            case .corrupted: bytes[bytes.count - 5] ^= 0x5a
            case .hostileSeek:
                let size = UInt64(DeltaDiffTests.bundle(seed: 1, imports: "Q2w3E4r5", edit: "v2").utf8.count)
                let baseSize = UInt64(DeltaDiffTests.bundle(seed: 1, imports: "A1b2C3d4", edit: "v1").utf8.count)
                let records = DeltaCodecTests.triple(0, 1, -10) + [65]
                bytes = [UInt8](
                    (try? DeltaCodecTests.delta(baseSize: baseSize, outputSize: size, records: records)) ?? Data())
            case .wrongSize:
                // The declared output size (bytes 20..<28) one larger than the manifest's.
                bytes[20] &+= 1
            }
            entries[at].data = Data(bytes)
        }
    }

    static func size(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }

    /// Version 1 and 2 of a site whose bundles carry content hashes: every bundle is rebuilt (renamed) in 2, with
    /// small edits, as a real web build does.
    static func twoVersions(_ fixture: Fixture) throws -> (URL, URL, [String: String]) {
        let files1 = site(version: 1)
        let files2 = site(version: 2)
        return (try fixture.pack("1.0.0", files: files1), try fixture.pack("2.0.0", files: files2), files2)
    }

    static func twoVersionsKeepingOld(_ fixture: Fixture) throws -> (URL, URL, [String: String]) {
        let files1 = site(version: 1)
        return (try fixture.pack("1.0.0", files: files1), try fixture.pack("2.0.0", files: site(version: 2)), files1)
    }

    static func site(version: Int) -> [String: String] {
        let indexHash = version == 1 ? "A1b2C3d4" : "Q2w3E4r5"
        let mainHash = version == 1 ? "1a2b3c4d" : "9e8d7c6b"
        return [
            "index.html": "<html><script src=\"assets/index-\(indexHash).js\"></script> v\(version)</html>",
            "assets/index-\(indexHash).js": bundle(seed: 1, imports: indexHash, edit: "v\(version)"),
            "static/js/main.\(mainHash).js": bundle(seed: 2, imports: mainHash, edit: "v\(version)"),
            "assets/unchanged.css": "body{margin:0}",
        ]
    }

    static func bundle(seed: UInt64, imports: String, edit: String) -> String {
        MinifiedBundle.text(seed: seed, importing: "chunk-\(imports).js", edit: edit)
    }
}
