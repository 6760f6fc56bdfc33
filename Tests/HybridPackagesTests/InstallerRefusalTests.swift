import Foundation
import HybridPackages
import Testing

/// Every hostile or broken package is refused with a typed error, and version 1.0.0 keeps serving intact.
@Suite struct InstallerRefusalTests {
    /// A store serving 1.0.0, plus a valid 2.0.0 package to mutilate.
    final class Setup {
        let fixture: Fixture
        let store: PackageStore
        let installer: PackageInstaller
        let good: URL

        init() throws {
            fixture = try Fixture()
            store = try fixture.openStore()
            installer = fixture.installer(store)
            try installer.install(packageAt: try fixture.pack("1.0.0"))
            good = try fixture.pack("2.0.0")
        }

        func mutate(_ name: String, _ transform: (inout [(path: String, data: Data)]) -> Void) throws
            -> URL
        {
            try fixture.rewrite(good, as: name, transform)
        }

        /// The old version is active in memory and on disk, its files intact, and no staging debris is left.
        func expectOldVersionServing(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(store.activeVersion("com.example.shop") == "1.0.0", sourceLocation: sourceLocation)
            let reopened = try fixture.openStore()
            #expect(reopened.activeVersion("com.example.shop") == "1.0.0", sourceLocation: sourceLocation)
            #expect(
                reopened.installedVersions("com.example.shop") == ["1.0.0"], sourceLocation: sourceLocation)
            #expect(
                reopened.repairReport.isClean, "\(reopened.repairReport)", sourceLocation: sourceLocation)
            let resolved = try PackageResolver(store: reopened).resolve(Fixture.serves + "index.html")
            let fileURL = try #require(resolved?.fileURL, sourceLocation: sourceLocation)
            #expect(
                try String(contentsOf: fileURL, encoding: .utf8) == "<html>shop 1.0.0</html>",
                sourceLocation: sourceLocation)
            #expect(
                !FileManager.default.fileExists(
                    atPath: fixture.root.appendingPathComponent("evil.txt").path),
                sourceLocation: sourceLocation)
        }
    }

    @Test func tamperedFile() throws {
        let setup = try Setup()
        let bad = try setup.mutate("tampered.zip") { entries in
            for index in entries.indices where entries[index].path == "content/index.html" {
                entries[index].data = Data("<html>shop 6.6.6</html>".utf8)  // same size, other bytes
            }
        }
        expectPackageError({ if case .hashMismatch(path: "index.html") = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func oversizedFile() throws {
        let setup = try Setup()
        let bad = try setup.mutate("oversized.zip") { entries in
            for index in entries.indices where entries[index].path == "content/app.js" {
                entries[index].data.append(Data(repeating: 0x20, count: 100_000))
            }
        }
        expectPackageError({ if case .sizeMismatch(path: "app.js", _, _) = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func modifiedManifest() throws {
        let setup = try Setup()
        let bad = try setup.mutate("manifest.zip") { entries in
            for index in entries.indices where entries[index].path == "manifest.json" {
                let text = String(decoding: entries[index].data, as: UTF8.self)
                entries[index].data = Data(
                    text.replacingOccurrences(of: "app.example.com", with: "evil.example").utf8)
            }
        }
        expectPackageError({ if case .signatureInvalid = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func badSignature() throws {
        let setup = try Setup()
        let bad = try setup.mutate("badsig.zip") { entries in
            for index in entries.indices where entries[index].path == "manifest.sig" {
                guard
                    var signature = try? JSONDecoder().decode(
                        ManifestSignature.self, from: entries[index].data)
                else { continue }
                signature.signature[0] ^= 0xFF
                entries[index].data = (try? signature.encoded()) ?? Data()
            }
        }
        expectPackageError({ if case .signatureInvalid = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func wrongKey() throws {
        let setup = try Setup()
        let foreign = try setup.fixture.pack("3.0.0", keyPair: PackageKeyPair.generate())
        let error = expectPackageError({ if case .untrustedSigningKey = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: foreign)
        }
        #expect(error?.description.contains(setup.fixture.keyPair.verificationKey.keyID) == true)
        try setup.expectOldVersionServing()
    }

    @Test(arguments: [
        "../evil.txt", "content/../../evil.txt", "/tmp/evil.txt", "content/a\\..\\evil.txt",
    ])
    func traversalEntry(path: String) throws {
        let setup = try Setup()
        let bad = try setup.mutate("traversal.zip") { $0.append((path, Data("owned".utf8))) }
        expectPackageError({ if case .unsafeEntryPath = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func signedManifestNamingATraversalPath() throws {
        // Even the holder of the signing key cannot make a package write outside its directory.
        let setup = try Setup()
        let data = Data("owned".utf8)
        let manifest = PackageManifest(
            id: "com.example.shop", version: "2.0.0", minimumContainerVersion: "0.0.0",
            serves: [Fixture.serves],
            entry: "index.html",
            files: [
                ManifestFileEntry(
                    path: "../evil.txt", size: Int64(data.count), sha256: CryptoHex.sha256(data),
                    mimeType: "text/plain"),
                ManifestFileEntry(
                    path: "index.html", size: Int64(data.count), sha256: CryptoHex.sha256(data),
                    mimeType: "text/html"),
            ])
        let bytes = try manifest.canonicalData()
        let signature = try setup.fixture.keyPair.sign(manifestBytes: bytes).encoded()
        let bad = setup.fixture.url("signed-traversal.zip")
        try Fixture.writeZip(
            [
                ("manifest.json", bytes), ("manifest.sig", signature), ("content/../evil.txt", data),
                ("content/index.html", data),
            ], to: bad)
        expectPackageError({
            if case .unsafeEntryPath("../evil.txt", .dotComponent) = $0 { true } else { false }
        }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    /// Signed manifests whose hash field is not 64 lowercase ASCII hex digits are refused before anything is
    /// written, even when the hash would match in some other spelling (uppercase, fullwidth digits).
    @Test(arguments: [
        "uppercase", "fullwidth", "too short", "not hex",
    ])
    func signedManifestWithAMalformedHash(spelling: String) throws {
        let setup = try Setup()
        let data = Data("<html>malformed</html>".utf8)
        let hash = CryptoHex.sha256(data)
        let malformed =
            switch spelling {
            case "uppercase": hash.uppercased()
            // U+FF10... are fullwidth digits: `Character.isHexDigit` accepts them.
            case "fullwidth": String(repeating: "\u{FF10}", count: 64)
            case "too short": String(hash.dropLast())
            default: String(hash.dropLast()) + "g"
            }
        let manifest = PackageManifest(
            id: "com.example.shop", version: "2.0.0", minimumContainerVersion: "0.0.0",
            serves: [Fixture.serves], entry: "index.html",
            files: [
                ManifestFileEntry(
                    path: "index.html", size: Int64(data.count), sha256: malformed, mimeType: "text/html")
            ])
        let bytes = try manifest.canonicalData()
        let signature = try setup.fixture.keyPair.sign(manifestBytes: bytes).encoded()
        let bad = setup.fixture.url("malformed-hash.zip")
        try Fixture.writeZip(
            [("manifest.json", bytes), ("manifest.sig", signature), ("content/index.html", data)], to: bad)
        expectPackageError({
            if case .manifestInvalid(let reason) = $0 { reason.contains("malformed SHA-256") } else { false }
        }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func symlinkEntry() throws {
        let setup = try Setup()
        var entries = try Fixture.entries(of: setup.good)
        entries.removeAll { $0.path == "content/app.js" }
        let bad = setup.fixture.url("symlink.zip")
        try Fixture.writeZip(entries, to: bad, symlinks: ["content/app.js": "/etc/passwd"])
        expectPackageError({ if case .symlinkEntry("content/app.js") = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func duplicateEntry() throws {
        let setup = try Setup()
        let bad = try setup.mutate("duplicate.zip") {
            $0.append(("content/app.js", Data("alert(1)".utf8)))
        }
        expectPackageError({ if case .duplicateEntry("content/app.js") = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func fileNotInManifest() throws {
        let setup = try Setup()
        let bad = try setup.mutate("extra.zip") {
            $0.append(("content/extra.js", Data("alert(1)".utf8)))
        }
        expectPackageError({ if case .unexpectedEntry("content/extra.js") = $0 { true } else { false } }
        ) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func manifestFileMissingFromZip() throws {
        let setup = try Setup()
        let bad = try setup.mutate("missing.zip") { $0.removeAll { $0.path == "content/app.js" } }
        expectPackageError({ if case .missingFile("app.js") = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: bad)
        }
        try setup.expectOldVersionServing()
    }

    @Test func truncatedPackageFile() throws {
        let setup = try Setup()
        let bytes = try Data(contentsOf: setup.good)
        let bad = setup.fixture.url("truncated.zip")
        try bytes.prefix(bytes.count / 2).write(to: bad)
        expectPackageError({
            switch $0 {
            case .archiveMalformed, .archiveUnreadable, .missingManifest, .missingSignature: true
            default: false
            }
        }) { try setup.installer.install(packageAt: bad) }
        try setup.expectOldVersionServing()
    }

    @Test func diskFull() throws {
        let setup = try Setup()
        let writer = DiskFullFileWriter(capacity: 40)
        let installer = setup.fixture.installer(setup.store, writer: writer)
        expectPackageError({ if case .diskFull = $0 { true } else { false } }) {
            try installer.install(packageAt: setup.good)
        }
        try setup.expectOldVersionServing()
    }

    @Test func diffAgainstAVersionThatIsNotInstalled() throws {
        let setup = try Setup()
        let base = try setup.fixture.pack("1.5.0")
        let diff = setup.fixture.url("diff-1.5-2.0.zip")
        try PackageDiffBuilder().buildDiff(
            from: base, to: setup.good, keyPair: setup.fixture.keyPair, output: diff)
        expectPackageError({
            if case .diffBaseNotInstalled(_, base: "1.5.0") = $0 { true } else { false }
        }) {
            try setup.installer.install(packageAt: diff)
        }
        try setup.expectOldVersionServing()
    }

    @Test func diffAgainstADifferentBuildOfTheBaseVersion() throws {
        let setup = try Setup()
        var otherFiles = Fixture.files(version: "1.0.0")
        otherFiles["app.js"] = "console.log('another 1.0.0 build')"
        let otherBase = try setup.fixture.pack("1.0.0", files: otherFiles, id: "com.example.shop")
        // `pack` names the zip by id and version, so build the diff before anything overwrites it.
        let diff = setup.fixture.url("diff-other-1.0-2.0.zip")
        try PackageDiffBuilder().buildDiff(
            from: otherBase, to: setup.good, keyPair: setup.fixture.keyPair, output: diff)
        expectPackageError({ if case .diffBaseMismatch(_, base: "1.0.0") = $0 { true } else { false } }) {
            try setup.installer.install(packageAt: diff)
        }
        try setup.expectOldVersionServing()
    }

    @Test func containerTooOld() throws {
        let setup = try Setup()
        let directory = try setup.fixture.site("future", Fixture.files(version: "4.0.0"))
        let output = setup.fixture.url("future.zip")
        try PackagePacker().pack(
            directory: directory,
            options: PackOptions(
                id: "com.example.shop", version: "4.0.0", serves: [Fixture.serves],
                minimumContainerVersion: "9.0.0"),
            keyPair: setup.fixture.keyPair, to: output)
        expectPackageError({
            if case .containerTooOld(required: "9.0.0", _) = $0 { true } else { false }
        }) {
            try setup.installer.install(packageAt: output)
        }
        try setup.expectOldVersionServing()
    }
}
