import Foundation
import HybridKit
import HybridPackages
import HybridTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A package key, a release key, packages of `com.example.shop` built with the library, a release tree written
/// by the real `hybrid-tools publish`, and nginx serving it.
final class ReleaseTreeFixture {
    static let id = "com.example.shop"
    let root: URL
    let packageKey = PackageKeyPair.generate()
    let releaseKey = PackageKeyPair.generate()
    let tree: URL
    let nginx: NginxServer

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-release-\(UUID().uuidString)")
        tree = root.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        nginx = try NginxServer(serving: tree)
        try packageKey.save(privateKeyTo: url("package.private"), publicKeyTo: url("package.public"))
        try releaseKey.save(privateKeyTo: url("release.private"), publicKeyTo: url("release.public"))
    }

    deinit {
        nginx.stop()
        try? FileManager.default.removeItem(at: root)
    }

    func url(_ name: String) -> URL { root.appendingPathComponent(name) }

    /// A site whose `assets/blob.bin` is `blobSize` random (incompressible) bytes, so downloads take many ranges.
    @discardableResult
    func pack(_ version: String, blobSize: Int = 4_096, blob: [UInt8]? = nil) throws -> URL {
        let site = url("site-\(version)")
        let files: [String: Data] = [
            "index.html": Data("<html>shop \(version)</html>".utf8),
            "app.js": Data("console.log('\(version)')".utf8),
            "assets/blob.bin": Data(blob ?? (0..<blobSize).map { _ in UInt8.random(in: 0...255) }),
        ]
        for (path, data) in files {
            let file = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file)
        }
        let output = url("shop-\(version).zip")
        let semver = try #require(SemanticVersion(version))
        try PackagePacker().pack(
            directory: site,
            options: PackOptions(id: Self.id, version: semver, serves: ["https://shop.example.com/app/"]),
            keyPair: packageKey, to: output)
        return output
    }

    /// Runs `hybrid-tools publish <packages> --out <tree> …` and requires it to succeed.
    @discardableResult
    func publish(_ packages: [URL], _ extra: [String] = []) async throws -> String {
        let tool = try #require(builtExecutable(named: "hybrid-tools"), "hybrid-tools must be built beside the tests")
        let arguments =
            ["publish"] + packages.map(\.path)
            + ["--out", tree.path, "--release-key", url("release.private").path] + extra
            + (packages.isEmpty ? [] : ["--package-key", url("package.private").path])
        let result = try await ChildProcess.run(tool, arguments: arguments)
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        let errors = String(decoding: result.standardError, as: UTF8.self)
        try #require(result.exitStatus == 0, "publish failed: \(output)\(errors)")
        return output
    }

    func indexFile(channel: String = "production") -> URL {
        ReleaseTreeLayout(root: tree).index(channel: channel, id: Self.id)
    }

    /// A store and an updater reading the tree through `base` (nginx, or a proxy in front of it).
    func client(
        storeName: String = "store", base: URL? = nil, channel: String = "production",
        host: SemanticVersion = SemanticVersion(major: 1, minor: 0, patch: 0),
        clock: any PackageClock = SystemPackageClock(), installID: String? = nil, session: URLSession? = nil
    ) throws -> ChannelUpdateClient {
        let reader = try ReleaseChannelReader(
            storeRoot: url(storeName),
            configuration: ReleaseChannelConfiguration(
                channel: channel, releaseKey: releaseKey.verificationKey, hostVersion: host),
            clock: clock, installID: installID)
        return ChannelUpdateClient(
            baseURL: base ?? nginx.baseURL, reader: reader, session: session ?? ChannelUpdateClient.uncachedSession())
    }

    func store(_ name: String = "store") throws -> PackageStore {
        try PackageStore(root: url(name), trustedKey: packageKey.verificationKey)
    }

    func updater(
        _ store: PackageStore, client: ChannelUpdateClient, chunkSize: Int64 = 16_384, maxAttempts: Int = 3
    ) -> PackageUpdater {
        let installer = PackageInstaller(
            store: store, trustedKey: packageKey.verificationKey,
            containerVersion: SemanticVersion(major: 1, minor: 0, patch: 0))
        return PackageUpdater(
            installer: installer,
            downloader: PackageDownloader(
                client: client, directory: store.root.appendingPathComponent(".downloads"), chunkSize: chunkSize,
                maxAttempts: maxAttempts))
    }

    static func version(_ text: String) throws -> SemanticVersion { try #require(SemanticVersion(text)) }
}

/// A clock the test moves.
final class TestClock: PackageClock {
    let date: Mutex<Date>
    init(_ date: Date = Date()) { self.date = Mutex(date) }
    func now() -> Date { date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
