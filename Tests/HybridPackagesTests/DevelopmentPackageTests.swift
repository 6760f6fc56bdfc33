import Foundation
import HybridPackages
import Testing

/// A directory served as an unsigned development package (`hybrid run <dir>`): served in place, re-read on
/// change, refused by everything that installs, stores or verifies packages.
@Suite struct DevelopmentPackageTests {
    static let serves = "https://app.localhost/"

    private func write(_ text: String, to path: String, in directory: URL) throws {
        let file = directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    private func expectError(
        _ expected: DevelopmentPackageError, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("expected \(expected), nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as DevelopmentPackageError {
            #expect(error == expected, sourceLocation: sourceLocation)
            #expect(!error.description.isEmpty, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func servesTheDirectoryInPlaceMarkedAsDevelopment() throws {
        let fixture = try Fixture()
        let site = try fixture.site("dev", ["index.html": "<p>one</p>", "js/app.js": "let a = 1"])
        let package = try DevelopmentPackage(directory: site, serves: [Self.serves])
        let manifest = try #require(package.manifest)
        #expect(manifest.development == true)
        #expect(manifest.version == DevelopmentPackage.version)
        #expect(manifest.version.description == "0.0.0-development")
        #expect(manifest.files.map(\.path) == ["index.html", "js/app.js"])
        #expect(manifest.files.first?.sha256 == CryptoHex.sha256(Data("<p>one</p>".utf8)))
        let resolver = PackageResolver(store: package)
        let entry = try #require(try resolver.resolve(Self.serves))
        #expect(
            entry.fileURL.standardizedFileURL.resolvingSymlinksInPath().path
                == site.appendingPathComponent("index.html").standardizedFileURL.resolvingSymlinksInPath().path)
        let script = try #require(try resolver.resolve(Self.serves + "js/app.js"))
        #expect(script.mimeType == "text/javascript; charset=utf-8")
        #expect(try resolver.resolve(Self.serves + "missing.js") == nil)
        #expect(throws: PackageRequestError.self) { try resolver.resolve(Self.serves + "%2e%2e/%2e%2e/etc/passwd") }
    }

    @Test func refreshSeesEditsAdditionsAndRemovalsAndNothingElse() throws {
        let fixture = try Fixture()
        let site = try fixture.site("dev", ["index.html": "<p>one</p>", "a.js": "1"])
        let package = try DevelopmentPackage(directory: site, serves: [Self.serves])
        #expect(!package.hasChanged())
        #expect(try !package.refresh())

        try write("<p>two, longer</p>", to: "index.html", in: site)
        #expect(package.hasChanged())
        #expect(try package.refresh())
        #expect(!package.hasChanged())
        let index = try #require(package.manifest?.filesByPath["index.html"])
        #expect(index.sha256 == CryptoHex.sha256(Data("<p>two, longer</p>".utf8)))

        try write("2", to: "b.js", in: site)
        try FileManager.default.removeItem(at: site.appendingPathComponent("a.js"))
        #expect(try package.refresh())
        #expect(package.manifest?.files.map(\.path) == ["b.js", "index.html"])
    }

    @Test func removingTheEntryPageKeepsThePreviousFilesServing() throws {
        let fixture = try Fixture()
        let site = try fixture.site("dev", ["index.html": "<p>one</p>"])
        let package = try DevelopmentPackage(directory: site, serves: [Self.serves])
        try FileManager.default.removeItem(at: site.appendingPathComponent("index.html"))
        expectError(.noEntryPage(directory: package.directory.path, entry: "index.html")) {
            try package.refresh()
        }
        #expect(package.manifest?.files.map(\.path) == ["index.html"])
    }

    @Test func leavesOutHiddenFilesOddPathsAndLinksThatLeave() throws {
        let fixture = try Fixture()
        let site = try fixture.site(
            "dev", ["index.html": "<p/>", ".git/config": "secret", ".env": "TOKEN=1", "inside.txt": "ok"])
        let outside = try fixture.site("outside", ["secret.txt": "not yours"])
        try FileManager.default.createSymbolicLink(
            at: site.appendingPathComponent("leak.txt"),
            withDestinationURL: outside.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(
            at: site.appendingPathComponent("alias.txt"), withDestinationURL: site.appendingPathComponent("inside.txt"))
        try write("x", to: "back\\slash.txt", in: site)
        let package = try DevelopmentPackage(directory: site, serves: [Self.serves])
        let paths = try #require(package.manifest?.files.map(\.path))
        #expect(paths == ["alias.txt", "index.html", "inside.txt"])
        #expect(package.skipped.contains { $0.hasPrefix("leak.txt: a symbolic link") })
        #expect(package.skipped.contains { $0.hasPrefix("back\\slash.txt") })
        #expect(try PackageResolver(store: package).resolve(Self.serves + "leak.txt") == nil)
        #expect(try PackageResolver(store: package).resolve(Self.serves + ".env") == nil)
    }

    @Test func refusesWhatCannotBeServedWithAnActionableError() throws {
        let fixture = try Fixture()
        let missing = fixture.url("nope")
        expectError(.notFound(path: missing.path)) {
            _ = try DevelopmentPackage(directory: missing, serves: [Self.serves])
        }
        let file = fixture.url("file.txt")
        try Data("x".utf8).write(to: file)
        expectError(.notADirectory(path: file.path)) {
            _ = try DevelopmentPackage(directory: file, serves: [Self.serves])
        }
        let noIndex = try fixture.site("no-index", ["main.html": "<p/>"])
        let resolved = noIndex.standardizedFileURL.resolvingSymlinksInPath().path
        expectError(.noEntryPage(directory: resolved, entry: "index.html")) {
            _ = try DevelopmentPackage(directory: noIndex, serves: [Self.serves])
        }
        #expect(try DevelopmentPackage(directory: noIndex, serves: [Self.serves], entry: "main.html").manifest != nil)
        expectError(.invalidPrefix("not a url")) {
            _ = try DevelopmentPackage(directory: noIndex, serves: ["not a url"], entry: "main.html")
        }
        let big = try fixture.site("big", ["index.html": String(repeating: "x", count: 2048), "a": "1", "b": "2"])
        let bigPath = big.standardizedFileURL.resolvingSymlinksInPath().path
        expectError(.tooManyFiles(directory: bigPath, limit: 2)) {
            _ = try DevelopmentPackage(
                directory: big, serves: [Self.serves], limits: DevelopmentPackage.Limits(maxFiles: 2))
        }
        expectError(.tooLarge(directory: bigPath, limit: 1024)) {
            _ = try DevelopmentPackage(
                directory: big, serves: [Self.serves], limits: DevelopmentPackage.Limits(maxBytes: 1024))
        }
    }

    /// Even signed with the trusted key, a development package's manifest is refused by the installer, the
    /// verifier and the store, and the installed version keeps serving.
    @Test func neverInstalledVerifiedOrKeptByAStore() throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        let installer = fixture.installer(store)
        try installer.install(packageAt: try fixture.pack("1.0.0"))

        let site = try fixture.site("dev", Fixture.files(version: "2.0.0"))
        let package = try DevelopmentPackage(directory: site, serves: [Fixture.serves], id: "com.example.shop")
        let manifest = try #require(package.manifest)
        let bytes = try manifest.canonicalData()
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""development":true"#))
        let signature = try fixture.keyPair.sign(manifestBytes: bytes).encoded()
        var entries: [(path: String, data: Data)] = [("manifest.json", bytes), ("manifest.sig", signature)]
        for file in manifest.files {
            entries.append(("content/\(file.path)", try Data(contentsOf: site.appendingPathComponent(file.path))))
        }
        let zip = fixture.url("development.zip")
        try Fixture.writeZip(entries, to: zip)

        expectPackageError({ if case .developmentPackage(id: "com.example.shop") = $0 { true } else { false } }) {
            try installer.install(packageAt: zip)
        }
        expectPackageError({ if case .developmentPackage = $0 { true } else { false } }) {
            _ = try PackageVerifier(trustedKey: fixture.keyPair.verificationKey).verify(packageAt: zip)
        }
        expectPackageError({ if case .developmentPackage = $0 { true } else { false } }) {
            _ = try PackageManifest.decode(bytes)
        }
        #expect(store.activeVersion("com.example.shop") == "1.0.0")
        #expect(store.installedVersions("com.example.shop") == ["1.0.0"])

        // Copied into the store by hand, next to the real version, and activated: the store discards it on open.
        let versions = fixture.storeRoot.appendingPathComponent("com.example.shop/versions")
        let planted = versions.appendingPathComponent(manifest.version.description)
        try FileManager.default.createDirectory(
            at: planted.appendingPathComponent("content"), withIntermediateDirectories: true)
        try bytes.write(to: planted.appendingPathComponent("manifest.json"))
        try signature.write(to: planted.appendingPathComponent("manifest.sig"))
        for file in manifest.files {
            let target = planted.appendingPathComponent("content/\(file.path)")
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: site.appendingPathComponent(file.path), to: target)
        }
        let reopened = try fixture.openStore()
        #expect(reopened.activeVersion("com.example.shop") == "1.0.0")
        #expect(!FileManager.default.fileExists(atPath: planted.path))
    }
}
