import Foundation
import HybridPackages
import HybridUpdateServer
import NIOPosix

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A temp directory with a key, packages of `com.example.shop` (1.0.0, 2.0.0 and the diff between them) built
/// with the library, a served directory, and an update server over it on 127.0.0.1:0.
final class ServerFixture {
    static let id = "com.example.shop"
    let root: URL
    let keyPair = PackageKeyPair.generate()
    let served: URL
    let full1: URL
    let full2: URL
    let diff12: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hybrid-update-server-\(UUID().uuidString)")
        served = root.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        full1 = root.appendingPathComponent("shop-1.0.0.zip")
        full2 = root.appendingPathComponent("shop-2.0.0.zip")
        diff12 = root.appendingPathComponent("shop-1.0.0-to-2.0.0.zip")
        try pack("1.0.0", files: Self.files(version: "1"), to: full1)
        // 2.0.0 changes app.js, adds new.js, removes old.js and carries a larger file so ranges have room.
        var files2 = Self.files(version: "2")
        files2["old.js"] = nil
        files2["new.js"] = "export const added = true"
        try pack("2.0.0", files: files2, to: full2)
        try PackageDiffBuilder().buildDiff(from: full1, to: full2, keyPair: keyPair, output: diff12)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    static func files(version: String) -> [String: String] {
        [
            "index.html": "<html>shop \(version)</html>",
            "app.js": "console.log('\(version)')",
            "old.js": "old",
            "assets/big.txt": String(repeating: "unchanged bytes of a larger asset\n", count: 400),
        ]
    }

    /// Copies packages into the served directory (what a release process would upload).
    func publish(_ packages: URL...) throws {
        for package in packages {
            try FileManager.default.copyItem(
                at: package, to: served.appendingPathComponent(package.lastPathComponent))
        }
    }

    /// The server runs on an event loop of its own: its timeouts are what several tests measure, and the rest
    /// of the test process (engine tests, HTTP clients) keeps NIO's shared loops busy.
    func startServer(headerTimeout: Duration = UpdateServer.defaultHeaderTimeout) async throws -> UpdateServer {
        try await UpdateServer.start(
            directory: served, headerTimeout: headerTimeout, eventLoopGroup: Self.serverLoop)
    }

    static let serverLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    func openStore() throws -> PackageStore {
        try PackageStore(
            root: root.appendingPathComponent("store"), trustedKey: keyPair.verificationKey)
    }

    func installer(_ store: PackageStore) -> PackageInstaller {
        PackageInstaller(
            store: store, trustedKey: keyPair.verificationKey,
            containerVersion: SemanticVersion(major: 1, minor: 0, patch: 0))
    }

    static func sha256(_ file: URL) throws -> String {
        try PackageInspector().inspect(packageAt: file).sha256
    }

    func pack(_ version: String, files: [String: String], to output: URL) throws {
        let directory = root.appendingPathComponent("site-\(output.deletingPathExtension().lastPathComponent)")
        for (path, text) in files {
            let file = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        guard let semver = SemanticVersion(version) else { throw FixtureError.badVersion(version) }
        try PackagePacker().pack(
            directory: directory,
            options: PackOptions(
                id: Self.id, version: semver, serves: ["https://shop.example.com/app/"]),
            keyPair: keyPair, to: output)
    }
}

enum FixtureError: Error {
    case badVersion(String)
    case notHTTP
}
