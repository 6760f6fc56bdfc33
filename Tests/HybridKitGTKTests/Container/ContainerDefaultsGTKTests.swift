#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridDemo
import HybridKitGTK
import HybridTestServers
import Testing

/// The defaults of a container serving packages, in real WebKitGTK: a File upload works with no feature listed,
/// and with request hooks turned off it fails in the page while the host lives (reading a Blob-backed body on a
/// custom scheme crashes WebKitGTK 2.50's UI process: the test process here).
@Suite(.serialized, .timeLimit(.minutes(2))) struct ContainerDefaultsGTKTests {
    @GTKActor final class Rig {
        let container: HybridContainer
        let root: URL
        let server: LoopbackServer

        init(interception: FeatureDefault) async throws {
            try GTKRuntime.shared.start(.headless)
            root = FileManager.default.temporaryDirectory.appendingPathComponent("defaults-\(UUID().uuidString)")
            let site = root.appendingPathComponent("site")
            try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
            try Data("<!doctype html><title>upload</title>".utf8).write(to: site.appendingPathComponent("index.html"))
            // The network behind the package: answers an upload with the number of bytes it received.
            server = try await LoopbackServer.start(serving: root) { router in
                router.post("/app/upload") { request, _ in
                    "received \(try await request.body.collect(upTo: 1 << 20).readableBytes)"
                }
            }
            let prefix = "\(server.origin)/app/"
            let store = try DemoPackage.install(site: site, id: "com.example.upload", serves: [prefix], in: root)
            container = try HybridContainer(
                configuration: ContainerConfiguration(
                    features: [PackageServing(store: store, route: try OfflineRoute(prefixes: [prefix]))],
                    requestInterception: interception),
                factory: GTKEngineFactory())
            try container.load(try #require(URL(string: "hybrid://127.0.0.1:\(server.port)/app/index.html")))
        }

        func evaluate(_ script: String) async -> String? { try? await container.engine.evaluateJavaScript(script) }

        /// Posts a File in a FormData to the package route, as an upload form would; the outcome lands in
        /// `window.outcome`.
        func upload() async throws -> String {
            try await waitUntil(timeout: .seconds(30)) { await self.evaluate("document.title") == #""upload""# }
            _ = await evaluate(
                """
                (() => {
                  const form = new FormData();
                  form.append('photo', new File(['x'.repeat(4096)], 'photo.jpg', { type: 'image/jpeg' }));
                  fetch('/app/upload', { method: 'POST', body: form })
                    .then((r) => r.text().then((text) => { window.outcome = r.status + ' ' + text; }),
                          (e) => { window.outcome = 'error ' + e.name; });
                })()
                """)
            var outcome: String?
            try await waitUntil(timeout: .seconds(30)) {
                outcome = await self.evaluate("window.outcome ?? null")
                return outcome != nil && outcome != "null"
            }
            return outcome ?? ""
        }

        func close() {
            container.close()
            server.stop()
            try? FileManager.default.removeItem(at: root)
        }
    }

    @Test @GTKActor func withoutHooksAFileUploadFailsInThePageAndTheHostLives() async throws {
        let rig = try await Rig(interception: .off)
        defer { rig.close() }
        let outcome = try await rig.upload()
        #expect(outcome.hasPrefix("\"error"), "the upload failed in the page: \(outcome)")
        // Still here, and the page still answers.
        #expect(await rig.evaluate("1 + 1") == "2")
    }

    @Test @GTKActor func byDefaultTheUploadReachesTheNetworkWithItsBody() async throws {
        let rig = try await Rig(interception: .automatic)
        defer { rig.close() }
        let outcome = try await rig.upload()
        // The multipart body: the 4,096 bytes of the file plus the boundaries and part headers.
        let received = outcome.split(separator: " ").last.flatMap { Int($0.filter(\.isNumber)) }
        #expect(outcome.hasPrefix("\"200 received"), "\(outcome)")
        #expect((received ?? 0) > 4096, "\(outcome)")
        #expect(await rig.evaluate("window.__hybridRequests.enabled") == "true")
    }
}
#endif
