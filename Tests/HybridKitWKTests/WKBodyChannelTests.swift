#if os(Linux)
import Foundation
import HybridKit
import HybridKitGTK
import HybridKitWK
import HybridNetwork
import HybridPackages
import HybridTestServers
import Testing
import WebKitStandIn

/// The body channel through HybridKitWK (WKEngine → the stand-in → WebKitGTK): a page from a custom scheme sends
/// large bodies to the loopback listener; when the listener stops under a loaded page (an iOS app suspended),
/// the hooks send the same bodies in slices through the WKURLSchemeHandler, whose bodies the adapter reads off
/// the main thread, and the page sees the same answers.
@Suite(.serialized) @MainActor struct WKBodyChannelTests {
    @Test func aChannelStoppedUnderALoadedPageFallsBackToSlices() async throws {
        try GTKRuntime.shared.start(.headless)
        WKStandIn.backend = WKStandInBackend(
            makeEngine: { settings in
                GTKWebView(configuration: GTKWebView.Configuration(settings: settings))
            })
        let pages = try #require(BodiesPages.directory)
        let server = try await LoopbackServer.start(serving: pages) { router in BodyEcho.addRoutes(to: router) }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wk-channel-\(UUID().uuidString)")
        let channel = try LoopbackBodyChannel.start()
        let engine = try WKEngine(schemes: ["hybrid"])
        defer {
            engine.close()
            channel.stop()
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let store = try PackageStore(root: root, trustedKey: PackageKeyPair.generate().verificationKey)
        let route = try OfflineRoute(scheme: "hybrid", prefixes: ["http://127.0.0.1:\(server.port)/"])
        let packages = PackageSchemeHandler(
            store: store, route: route, hop: EngineExecutorHop.hop(onExecutorOf: engine),
            network: HTTPClientNetworkFetcher())
        let mapping = OfflineURLMapping(route: route)
        let interception = try RequestInterception.install(
            on: engine, scheme: "hybrid", inner: packages, config: InterceptionConfig(chunkBytes: 256 * 1024),
            mapURL: { mapping.packageURL(for: $0) }, bodyChannel: channel)
        let page = "hybrid://127.0.0.1:\(server.port)/bodies/conformance.html"
        try engine.load(EngineRequest(url: try #require(URL(string: page))))
        #expect(try await waitUntil { await evaluate(engine, "!!window.conformance") == "true" })

        let script = """
            (async () => {
              const blob = new Blob([new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251)]);
              const viaFetch = await (await fetch('/echo', { method: 'POST', body: blob })).json();
              const viaXHR = await new Promise((resolve) => { const x = new XMLHttpRequest(); x.open('POST', '/echo');
                x.onload = () => resolve(JSON.parse(x.responseText)); x.onerror = () => resolve({ error: true });
                x.send(blob); });
              return [viaFetch.length, viaFetch.sha256, viaXHR.length, viaXHR.sha256];
            })()
            """
        let over = try await run(engine, script)
        #expect(channel.routes.uploadsOpened == 2, "\(channel.routes.uploadsOpened) uploads over the channel")
        #expect(over.hasPrefix("[3145728,"), "\(over)")

        // The listener goes away under the loaded page, as when iOS suspends the app.
        channel.stop()
        let inSlices = try await run(engine, script)
        #expect(inSlices == over, "over the channel \(over), in slices \(inSlices)")
        #expect(channel.routes.uploadsOpened == 2)
        #expect(try await waitUntil { interception.handler.store.count == 0 })
    }

    func evaluate(_ engine: any WebEngine, _ script: String) async -> String? {
        try? await engine.evaluateJavaScript(script)
    }

    /// Runs a promise-valued `expression` in the page and returns its value as JSON text (60 s at most).
    func run(_ engine: any WebEngine, _ expression: String) async throws -> String {
        let key = UUID().uuidString
        _ = try await engine.evaluateJavaScript(
            """
            (function () {
              window.__r = window.__r || {};
              window.__r['\(key)'] = null;
              Promise.resolve().then(() => \(expression)).then(
                (v) => { window.__r['\(key)'] = JSON.stringify(v); },
                (e) => { window.__r['\(key)'] = JSON.stringify({ error: String(e && e.message || e) }); });
              return true;
            })()
            """)
        var answer: String?
        _ = try await waitUntil(timeout: .seconds(60)) {
            answer = await evaluate(engine, "window.__r['\(key)']")
            return answer != nil && answer != "null"
        }
        let json = try #require(answer)
        return try JSONDecoder().decode(String.self, from: Data(json.utf8))
    }
}
#endif
