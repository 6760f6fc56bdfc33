import Foundation
import HybridPackages
import Synchronization
import Testing

@Suite struct PackerVerifierTests {
    @Test func packsSignsAndVerifies() throws {
        let fixture = try Fixture()
        let progress = ProgressLog()
        let directory = try fixture.site("a", Fixture.files(version: "1.0.0"))
        let output = fixture.url("a.zip")
        let manifest = try PackagePacker().pack(
            directory: directory,
            options: PackOptions(id: "com.example.shop", version: "1.0.0", serves: [Fixture.serves]),
            keyPair: fixture.keyPair, to: output, progress: { progress.add($0) })
        #expect(
            manifest.files.map(\.path) == [
                "app.js", "assets/logo.svg", "assets/unchanged.css", "index.html",
            ])
        #expect(manifest.filesByPath["index.html"]?.mimeType == "text/html; charset=utf-8")
        #expect(manifest.filesByPath["assets/logo.svg"]?.mimeType == "image/svg+xml")
        #expect(progress.phases.contains(.hashing) && progress.phases.contains(.packing))

        let entries = try Fixture.entries(of: output)
        #expect(entries.first?.path == "manifest.json")
        // The stored manifest is the canonical encoding: sorted keys, no whitespace.
        let stored = try #require(entries.first?.data)
        #expect(stored == (try manifest.canonicalData()))
        #expect(!String(decoding: stored, as: UTF8.self).contains("\n"))

        let verified = try PackageVerifier(trustedKey: fixture.keyPair.verificationKey).verify(
            packageAt: output)
        #expect(verified == manifest)
    }

    @Test func keyFilesRoundTripAndRefuseTheWrongKind() throws {
        let fixture = try Fixture()
        let privateURL = fixture.url("key")
        let publicURL = fixture.url("key.pub")
        try fixture.keyPair.save(privateKeyTo: privateURL, publicKeyTo: publicURL)
        let loaded = try PackageKeyPair.load(privateKeyFrom: privateURL)
        #expect(loaded.verificationKey == fixture.keyPair.verificationKey)
        #expect(try PackageVerificationKey.load(from: publicURL) == fixture.keyPair.verificationKey)
        #expect(throws: KeyFileError.self) { try PackageKeyPair.load(privateKeyFrom: publicURL) }
        #expect(throws: KeyFileError.self) { try PackageVerificationKey.load(from: privateURL) }
        let attributes = try FileManager.default.attributesOfItem(atPath: privateURL.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func verifierRefusesTamperingAndForeignKeys() throws {
        let fixture = try Fixture()
        let package = try fixture.pack("1.0.0")
        let verifier = PackageVerifier(trustedKey: fixture.keyPair.verificationKey)

        let tampered = try fixture.rewrite(package, as: "tampered.zip") { entries in
            if let index = entries.firstIndex(where: { $0.path == "content/app.js" }) {
                entries[index].data = Data("console.log('PWN!!')".utf8)  // same size, other bytes
            }
        }
        expectPackageError({ if case .hashMismatch(path: "app.js") = $0 { true } else { false } }) {
            try verifier.verify(packageAt: tampered)
        }

        let other = PackageKeyPair.generate()
        let foreign = try fixture.pack("1.0.0", id: "com.example.other", keyPair: other)
        expectPackageError({ if case .untrustedSigningKey = $0 { true } else { false } }) {
            try verifier.verify(packageAt: foreign)
        }
    }
}

/// Collects progress reports from a `@Sendable` callback.
final class ProgressLog: Sendable {
    private let reports = Mutex<[PackageProgress]>([])
    func add(_ report: PackageProgress) { reports.withLock { $0.append(report) } }
    var phases: Set<PackageProgress.Phase> { Set(reports.withLock { $0.map(\.phase) }) }
}
