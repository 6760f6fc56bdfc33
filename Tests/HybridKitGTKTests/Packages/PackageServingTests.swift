#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridPackages
import HybridTestServers
import Testing

/// An offline package served to real WebKitGTK through `PackageSchemeHandler`, with a miss that falls back to a
/// loopback origin server.
@Suite(.serialized) struct PackageServingTests {
    static let scripts = 20
    static let styles = 20
    static let images = 12
    /// The smallest PNG there is (1×1), so `onload` fires for every image.
    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

    /// Writes the site: an index page counting 52 sub-resources as they load, a 1 MB clip and a script the
    /// package does not have (served by the loopback origin instead).
    static func writeSite(to site: URL, loopback: String) throws {
        let png = try #require(png)
        let manager = FileManager.default
        for folder in ["js", "css", "img"] {
            try manager.createDirectory(at: site.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        var head = ""
        var body = ""
        for index in 0..<styles {
            try Data("/* \(index) */ body { margin: 0 }".utf8).write(
                to: site.appendingPathComponent("css/s\(index).css"))
            head += "<link rel=\"stylesheet\" href=\"css/s\(index).css\" onload=\"hit()\">\n"
        }
        for index in 0..<images {
            try png.write(to: site.appendingPathComponent("img/i\(index).png"))
            body += "<img src=\"/app/img/i\(index).png\" onload=\"hit()\">\n"
        }
        for index in 0..<scripts {
            try Data("hit(); // \(index)".utf8).write(to: site.appendingPathComponent("js/s\(index).js"))
            body += "<script src=\"js/s\(index).js\"></script>\n"
        }
        try Data((0..<1_048_576).map { UInt8($0 % 256) }).write(to: site.appendingPathComponent("clip.bin"))
        let host = loopback.replacingOccurrences(of: "http:", with: "")
        let html = """
            <!doctype html><html><head><title>offline</title>
            <script>window.loaded = 0; function hit() { window.loaded++; }</script>
            \(head)</head><body>
            \(body)<script src="\(host)/app/remote.js"></script>
            <script>
            fetch('clip.bin', { headers: { Range: 'bytes=100-199' } }).then(async (r) => {
              const bytes = new Uint8Array(await r.arrayBuffer());
              window.clip = [r.status, bytes.length, bytes[0], r.headers.get('Content-Range')];
            }, (e) => { window.clip = ['failed', String(e)]; });
            </script></body></html>
            """
        try Data(html.utf8).write(to: site.appendingPathComponent("index.html"))
    }

    @Test @GTKActor func servesAPackageWithRangesAndFallsBackToTheNetworkForMisses() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // The origin server has the one file the package lacks.
        let origin = root.appendingPathComponent("origin/app")
        try FileManager.default.createDirectory(at: origin, withIntermediateDirectories: true)
        try Data("window.remoteLoaded = true;".utf8).write(to: origin.appendingPathComponent("remote.js"))
        let server = try await LoopbackServer.start(serving: root.appendingPathComponent("origin"))
        defer { server.stop() }

        let site = root.appendingPathComponent("site")
        try Self.writeSite(to: site, loopback: server.origin)
        let serves = ["https://shop.example.test/app/", "\(server.origin)/app/"]
        let store = try installTestPackage(site: site, id: "com.example.shop", serves: serves, in: root)

        try GTKRuntime.shared.start(.headless)
        let view = GTKWebView()
        defer { view.close() }
        let handler = PackageSchemeHandler(
            store: store, route: try OfflineRoute(scheme: "hybrid", prefixes: serves),
            hop: EngineExecutorHop.hop(onExecutorOf: view))
        try view.setSchemeHandler(handler, forScheme: "hybrid")
        try view.load(EngineRequest(url: try #require(URL(string: "hybrid://shop.example.test/app/index.html"))))

        let expected = Self.scripts + Self.styles + Self.images
        try await waitUntil(timeout: .seconds(60)) {
            (try? await view.evaluateJavaScript(
                "window.loaded === \(expected) && !!window.clip && window.remoteLoaded === true")) == "true"
        }
        #expect(try await view.evaluateJavaScript("window.loaded") == "\(expected)")
        #expect(try await view.evaluateJavaScript("window.clip") == #"[206,100,100,"bytes 100-199/1048576"]"#)
        #expect(try await view.evaluateJavaScript("location.href") == #""hybrid://shop.example.test/app/index.html""#)
    }
}
#endif
