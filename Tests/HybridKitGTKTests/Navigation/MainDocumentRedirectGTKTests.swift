#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridKit
import HybridKitGTK
import HybridPackages
import HybridTestServers
import Testing

/// A main document whose network fallback answers 302, in real WebKitGTK: the view ends at the final URL.
@Suite(.serialized) struct MainDocumentRedirectGTKTests {
    @Test @GTKActor func mainDocument302EndsAtTheRightURLAndSubResourcesFollowNatively() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-redir-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // The origin: `final.html` loads `old.js`, which the server moves to `new.js`.
        let origin = root.appendingPathComponent("origin/app")
        try FileManager.default.createDirectory(at: origin, withIntermediateDirectories: true)
        // `final.html` also frames `frame`, which redirects too: an iframe's redirect must not move the page.
        try Data(
            #"<!doctype html><title>final</title><script src="old.js"></script><iframe src="frame"></iframe>"#.utf8
        ).write(to: origin.appendingPathComponent("final.html"))
        try Data("<script>parent.framed = location.href;</script>".utf8).write(
            to: origin.appendingPathComponent("framed.html"))
        try Data("window.newLoaded = true;".utf8).write(to: origin.appendingPathComponent("new.js"))
        let server = try await LoopbackServer.start(serving: root.appendingPathComponent("origin")) { router in
            router.get("/app/start") { _, _ in Response(status: .found, headers: [.location: "/app/final.html"]) }
            router.get("/app/old.js") { _, _ in Response(status: .found, headers: [.location: "/app/new.js"]) }
            router.get("/app/frame") { _, _ in Response(status: .found, headers: [.location: "/app/framed.html"]) }
        }
        defer { server.stop() }

        // A package serving the origin's `/app/` without any of those files, so every one is a miss.
        let site = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data("<title>entry</title>".utf8).write(to: site.appendingPathComponent("index.html"))
        let serves = ["\(server.origin)/app/"]
        let store = try installTestPackage(site: site, id: "com.example.redir", serves: serves, in: root)

        try GTKRuntime.shared.start(.headless)
        let view = GTKWebView()
        defer { view.close() }
        let handler = PackageSchemeHandler(
            store: store, route: try OfflineRoute(scheme: "hybrid", prefixes: serves),
            hop: EngineExecutorHop.hop(onExecutorOf: view), navigate: PackageSchemeHandler.navigator(for: view))
        let recorder = RecordingSchemeHandler(handler)
        let notes = MainFrameNotes(handler)
        view.navigationDelegate = notes
        try view.setSchemeHandler(recorder, forScheme: "hybrid")
        let base = "hybrid://127.0.0.1:\(server.port)/app/"
        let start = try #require(URL(string: base + "start"))
        try view.load(EngineRequest(url: start))

        try await waitUntil(timeout: .seconds(30)) {
            (try? await view.evaluateJavaScript(
                "document.title === 'final' && window.newLoaded === true && !!window.framed")) == "true"
        }
        #expect(view.url?.absoluteString == base + "final.html")
        #expect(try await view.evaluateJavaScript("location.href") == "\"\(base)final.html\"")
        #expect(view.title == "final")
        // The frame followed its redirect natively, so it keeps the URL it asked for.
        #expect(try await view.evaluateJavaScript("window.framed") == "\"\(base)frame\"")
        // The redirect left no history entry: the page has one document behind it, not two.
        #expect(try await view.evaluateJavaScript("history.length") == "1")
        // Each URL asked for once: the redirect was not retried, and the frame's redirect did not reload the page.
        let paths = recorder.requests.map(\.url.path).sorted()
        #expect(paths == ["/app/final.html", "/app/frame", "/app/old.js", "/app/start"])
    }
}
#endif
