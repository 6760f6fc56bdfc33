#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridKit
import HybridKitGTK
import HybridTestServers
import HybridTestSupport
import Testing

/// Downloads from a package page, in real WebKitGTK: a file the engine cannot show, or one the page marks with
/// `download`, reaches the host's navigation policy host as a download, and the page stays. WebKitGTK 2.50 starts
/// no download of a custom-scheme response itself; the adapter reports those (the engine conformance case
/// `downloads.customSchemeAttachmentsAreRecognized` checks the same at the port). Without a navigation policy,
/// nothing hears downloads or failed sub-resources: the host is told so, when it sets a host, when a download is
/// dropped and when a sub-resource fails.
@Suite(.serialized, .timeLimit(.minutes(2))) struct PackageDownloadsGTKTests {
    @GTKActor final class Rig {
        let container: HybridContainer
        let host = PolicyHostRecorder()
        let root: URL
        /// The origin the package's route serves.
        let server: LoopbackServer

        init(navigationPolicy: NavigationPolicyConfiguration?) async throws {
            try GTKRuntime.shared.start(.headless)
            root = FileManager.default.temporaryDirectory.appendingPathComponent("downloads-\(UUID().uuidString)")
            let site = root.appendingPathComponent("site")
            let files = site.appendingPathComponent("files")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            try Data(
                """
                <!doctype html><title>files</title>
                <a id=zip href="files/data.zip">archive</a>
                <a id=named href="files/notes.txt" download="saved-notes.txt">notes</a>
                """.utf8
            ).write(to: site.appendingPathComponent("index.html"))
            try Data("PK not really a zip".utf8).write(to: files.appendingPathComponent("data.zip"))
            try Data("plain text".utf8).write(to: files.appendingPathComponent("notes.txt"))
            server = try await LoopbackServer.start(serving: root)
            let prefix = "\(server.origin)/app/"
            let store = try DemoPackage.install(site: site, id: "com.example.downloads", serves: [prefix], in: root)
            container = try HybridContainer(
                configuration: ContainerConfiguration(
                    features: [PackageServing(store: store, route: try OfflineRoute(prefixes: [prefix]))],
                    navigationPolicy: navigationPolicy),
                factory: GTKEngineFactory())
            container.navigationPolicyHost = host
            try container.load(try url("index.html"))
        }

        func url(_ path: String) throws -> URL {
            try #require(URL(string: "hybrid://127.0.0.1:\(server.port)/app/\(path)"))
        }

        func evaluate(_ script: String) async -> String? { try? await container.engine.evaluateJavaScript(script) }

        func shown() async throws {
            try await waitUntil(timeout: .seconds(30)) { await self.evaluate("document.title") == #""files""# }
        }

        func close() {
            container.close()
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
    }

    @Test @GTKActor func packageFilesTheEngineCannotShowOrMarkedDownloadReachTheHost() async throws {
        let rig = try await Rig(navigationPolicy: NavigationPolicyConfiguration())
        defer { rig.close() }
        try await rig.shown()

        _ = await rig.evaluate("document.getElementById('zip').click()")
        try await waitUntil(timeout: .seconds(10)) { rig.host.downloads.count == 1 }
        let archive = try #require(rig.host.downloads.first)
        #expect(archive.url == (try rig.url("files/data.zip")))
        #expect(archive.suggestedFilename == "data.zip")
        #expect(archive.mimeType == "application/octet-stream")

        _ = await rig.evaluate("document.getElementById('named').click()")
        try await waitUntil(timeout: .seconds(10)) { rig.host.downloads.count == 2 }
        let notes = rig.host.downloads[1]
        #expect(notes.url == (try rig.url("files/notes.txt")))
        // WebKitGTK gives the `download` attribute's name only to a download it can load, which a custom scheme's
        // is not: the URL names it.
        #expect(notes.suggestedFilename == "notes.txt")

        // Neither replaced the page.
        #expect(await rig.evaluate("document.title") == #""files""#)
        #expect(rig.host.downloads.count == 2)
    }

    @Test @GTKActor func withoutANavigationPolicyTheHostIsToldItHearsNothing() async throws {
        let logs = LogCapture.installed()
        logs.reset()
        let rig = try await Rig(navigationPolicy: nil)
        defer { rig.close() }
        #expect(
            logs.messages("hybrid.container").contains {
                $0.hasPrefix("navigationPolicyHost set on a container without a navigation policy")
            })
        try await rig.shown()

        _ = await rig.evaluate("document.getElementById('zip').click()")
        try await waitUntil(timeout: .seconds(10)) {
            logs.messages("hybrid.page").contains { $0.hasPrefix("the page's download was dropped") }
        }
        #expect(rig.host.downloads.isEmpty)
        #expect(await rig.evaluate("document.title") == #""files""#)

        // A failed sub-resource (a host no route serves: the package handler refuses it) is not silent either.
        _ = await rig.evaluate(
            "const img = document.createElement('img'); img.src = 'hybrid://nothing.invalid/missing.png'; "
                + "document.body.append(img); true")
        try await waitUntil(timeout: .seconds(10)) {
            logs.messages("hybrid.page").contains { $0 == "sub-resource failed to load" }
        }
    }
}
#endif
