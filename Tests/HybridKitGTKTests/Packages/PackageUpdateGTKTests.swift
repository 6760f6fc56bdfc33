#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridPackages
import HybridUpdateServer
import Testing

/// Package updates in the real engine: a page served by `PackageSchemeHandler` follows an update fetched from
/// the update server behind `hybrid serve` (full, then diff) and a rollback, with no new handler or web view.
@Suite(.serialized) struct PackageUpdateGTKTests {
    static let id = "com.example.shop"
    static let serves = ["https://shop.example.test/app/"]
    static let v1 = SemanticVersion(major: 1, minor: 0, patch: 0)
    static let v2 = SemanticVersion(major: 2, minor: 0, patch: 0)

    /// The site at `version`; 2 adds `new.js`, so the page also shows that a file only the diff carries is served.
    static func files(version: String) -> [String: String] {
        let extra = version == "2" ? "<script src=\"new.js\"></script>" : ""
        var files = [
            "index.html": """
            <!doctype html><html><head><title>v\(version)</title>
            <script src="app.js"></script>\(extra)</head><body>shop \(version)</body></html>
            """,
            "app.js": "window.version = '\(version)';",
            // Unchanged between versions, so the diff has something to leave out.
            "assets/big.txt": String(repeating: "unchanged bytes of a larger asset\n", count: 400),
        ]
        if version == "2" { files["new.js"] = "window.added = true;" }
        return files
    }

    static func pack(
        _ version: SemanticVersion, files: [String: String], in root: URL, keys: PackageKeyPair, to output: URL
    ) throws {
        let site = root.appendingPathComponent("site-\(version)")
        for (path, text) in files {
            let file = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        try PackagePacker().pack(
            directory: site, options: PackOptions(id: id, version: version, serves: serves), keyPair: keys,
            to: output)
    }

    /// Waits for the page to show `version`, in its title and in what its script set.
    @GTKActor static func waitForVersion(_ version: String, in view: GTKWebView) async throws {
        try await waitUntil(timeout: .seconds(30)) {
            (try? await view.evaluateJavaScript(
                "document.title === 'v\(version)' && window.version === '\(version)'")) == "true"
        }
        #expect(try await view.evaluateJavaScript("document.title") == "\"v\(version)\"")
        #expect(try await view.evaluateJavaScript("window.version") == "\"\(version)\"")
    }

    @Test @GTKActor func updatesFullThenDiffAndRollsBackInTheEngine() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hybrid-update-gtk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let keys = PackageKeyPair.generate()
        let full1 = root.appendingPathComponent("shop-1.0.0.zip")
        let full2 = root.appendingPathComponent("shop-2.0.0.zip")
        let diff12 = root.appendingPathComponent("shop-1.0.0-to-2.0.0.zip")
        try Self.pack(Self.v1, files: Self.files(version: "1"), in: root, keys: keys, to: full1)
        try Self.pack(Self.v2, files: Self.files(version: "2"), in: root, keys: keys, to: full2)
        try PackageDiffBuilder().buildDiff(from: full1, to: full2, keyPair: keys, output: diff12)

        // Only 1.0.0 is published at first, so the first update can only be the full package.
        let served = root.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: full1, to: served.appendingPathComponent(full1.lastPathComponent))
        let server = try await UpdateServer.start(directory: served, host: "127.0.0.1", port: 0)
        defer { server.stop() }

        let store = try PackageStore(root: root.appendingPathComponent("store"), trustedKey: keys.verificationKey)
        let installer = PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: Self.v1)
        let updater = PackageUpdater(installer: installer, client: HTTPUpdateClient(baseURL: server.baseURL))

        // (1) Full install of 1.0.0.
        #expect(try await updater.update(Self.id) == .updated(from: nil, to: Self.v1, viaDiff: false))
        #expect(store.activeVersion(Self.id) == Self.v1)

        try GTKRuntime.shared.start(.headless)
        let view = GTKWebView()
        defer { view.close() }
        let handler = PackageSchemeHandler(
            store: store, route: try OfflineRoute(scheme: "hybrid", prefixes: Self.serves),
            hop: EngineExecutorHop.hop(onExecutorOf: view))
        try view.setSchemeHandler(handler, forScheme: "hybrid")
        try view.load(EngineRequest(url: try #require(URL(string: "hybrid://shop.example.test/app/index.html"))))
        try await Self.waitForVersion("1", in: view)
        #expect(try await view.evaluateJavaScript("window.added === undefined") == "true")

        // (2) 2.0.0 and the diff from 1.0.0 are published; the updater must take the diff.
        for package in [full2, diff12] {
            try FileManager.default.copyItem(
                at: package, to: served.appendingPathComponent(package.lastPathComponent))
        }
        #expect(try await updater.update(Self.id) == .updated(from: Self.v1, to: Self.v2, viaDiff: true))
        #expect(store.activeVersion(Self.id) == Self.v2)
        // The same handler and view: the resolver reads the store on every request, so a reload is enough.
        view.reload()
        try await Self.waitForVersion("2", in: view)
        #expect(try await view.evaluateJavaScript("window.added === true") == "true")

        // (3) Rollback brings 1.0.0 back on the next load, and 2.0.0's new file goes with it.
        #expect(try store.rollback(Self.id) == Self.v1)
        #expect(store.activeVersion(Self.id) == Self.v1)
        view.reload()
        try await Self.waitForVersion("1", in: view)
        #expect(try await view.evaluateJavaScript("window.added === undefined") == "true")
    }
}
#endif
