import Foundation
import HybridConfig
import HybridContainer
import HybridContainerGTK
import HybridCore
import HybridGTK
import HybridInterception
import HybridNetwork
import HybridOffline
import HybridPackages
import HybridTour
import Hummingbird
import Synchronization
import Testing

/// A signed remote configuration applied to a live container in real WebKitGTK: the degrade list moves a
/// packaged page to the network, a hook switch unhooks fetch (and only fetch), bridge permissions withdraw a
/// module, and a replacement script reaches the next document. The container's navigation policy runs too.
extension ContainerGTKTests {
    @Suite struct RemoteConfigApplied {
        /// Counts what the hooks hand to native networking, then lets the real proxy do it.
        final class CountingProxy: RequestProxying {
            let inner: NativeProxy
            let count = Mutex(0)
            init(_ inner: NativeProxy) { self.inner = inner }
            func perform(_ request: ProxiedRequest, events: @escaping @Sendable (ProxyEvent) -> Void)
                -> any ProxyCancelling
            {
                count.withLock { $0 += 1 }
                return inner.perform(request, events: events)
            }
        }

        @Test @GTKActor func aNewerConfigurationReachesTheLivePage() async throws {
            try GTKRuntime.shared.start()
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-rc-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let site = root.appendingPathComponent("site")
            let network = root.appendingPathComponent("network")
            for (base, origin) in [(site, "package"), (network, "network")] {
                let legacy = base.appendingPathComponent("app/legacy")
                try FileManager.default.createDirectory(at: legacy, withIntermediateDirectories: true)
                try Data("<!doctype html><title>\(origin) main</title>".utf8)
                    .write(to: base.appendingPathComponent("app/index.html"))
                try Data("<!doctype html><title>\(origin) legacy</title>".utf8)
                    .write(to: legacy.appendingPathComponent("index.html"))
            }
            let server = try await LoopbackServer.start(serving: network) { router in
                router.post("/app/echo") { _, _ in "echoed" }
            }
            defer { server.stop() }
            let prefix = "\(server.origin)/app/"
            let packageRoot = site.appendingPathComponent("app")
            let store = try DemoPackage.install(site: packageRoot, id: "com.example.rc", serves: [prefix], in: root)
            let route = try OfflineRoute(prefixes: [prefix])
            let mapping = OfflineURLMapping(route: route)
            let pageURL: @Sendable (URL) -> URL? = { mapping.packageURL(for: $0) }
            let proxy = CountingProxy(
                NativeProxy(policy: ProxyPolicy(allowedHosts: ["127.0.0.1"], allowedAddressKinds: [.loopback])))

            let keys = PackageKeyPair.generate()
            let configs = RemoteConfigStore(
                trustedKey: keys.verificationKey, source: try #require(URL(string: "http://127.0.0.1:9/none")),
                cache: ConfigCache(directory: root.appendingPathComponent("config")))
            let first = RemoteConfig(
                version: 1,
                scripts: [
                    ReplacementScript(name: "marker", source: "window.marker = 'v1';", injectionTime: .documentStart)
                ])
            #expect(configs.offer(try SignedConfig.sign(first, with: keys)) == .updated(version: 1))

            let pageOrigin = "hybrid://127.0.0.1:\(server.port)"
            let camera = BridgeModule("camera", access: .origins(pageOrigin)) { module in
                module.method("snap") { (_: NoArguments, _) in "snapped" }
            }
            let container = try HybridContainer(
                configuration: ContainerConfiguration(
                    modules: [camera], packages: PackageServing(store: store, route: route),
                    features: [
                        RequestInterceptionFeature(
                            config: InterceptionConfig(defaultStrategy: .fullProxy), proxy: proxy, mapURL: pageURL)
                    ],
                    navigationPolicy: NavigationPolicyConfiguration(),
                    remoteConfig: RemoteConfigApplication(
                        store: configs,
                        scripts: [NamedUserScript("marker", UserScript(source: "window.marker = 'app';"))])),
                factory: GTKEngineFactory())
            defer { container.close() }
            #expect(container.appliedConfigVersion == 1)
            let policyHost = PolicyHostRecorder()
            container.navigationPolicyHost = policyHost

            func load(_ path: String, title: String) async throws {
                // A title the next document cannot have, so the wait is for the new one.
                if container.engine.title != nil {
                    _ = try await container.engine.evaluateJavaScript("document.title = 'leaving'; 1")
                    try await waitUntil(timeout: .seconds(30)) { container.engine.title == "leaving" }
                }
                try container.load(try #require(URL(string: "\(pageOrigin)/app/\(path)")))
                do {
                    try await waitUntil(timeout: .seconds(30)) { container.engine.title == title }
                } catch {
                    Issue.record("\(path): the title is \(container.engine.title ?? "nil"), expected \(title)")
                    throw error
                }
            }
            func run(_ script: String) async throws -> String {
                _ = try await container.engine.evaluateJavaScript(
                    "window.answer = null; (\(script)).then((v) => { window.answer = 'ok ' + v; }, "
                        + "(e) => { window.answer = 'error ' + (e && e.message || e); }); 1")
                var answer = "null"
                try await waitUntil(timeout: .seconds(30)) {
                    answer = try await container.engine.evaluateJavaScript("window.answer") ?? "null"
                    return answer != "null"
                }
                return try JSONDecoder().decode(String.self, from: Data(answer.utf8))
            }
            let post = { (api: String) in
                api == "fetch"
                    ? "fetch('/app/echo', { method: 'POST', body: 'x' }).then((r) => r.text())"
                    : """
                    new Promise((resolve, reject) => { const x = new XMLHttpRequest(); x.open('POST', '/app/echo');
                      x.onload = () => resolve(x.responseText); x.onerror = () => reject(new Error('xhr')); x.send('x'); })
                    """
            }

            // Version 1: packaged pages, everything hooked (full proxy), the module open, the script replaced.
            try await load("legacy/index.html", title: "package legacy")
            try await load("index.html", title: "package main")
            #expect(try await container.engine.evaluateJavaScript("window.marker") == "\"v1\"")
            #expect(try await run("hybrid.call('camera', 'snap')") == "ok snapped")
            #expect(try await run(post("fetch")) == "ok echoed")
            #expect(try await run(post("xhr")) == "ok echoed")
            #expect(proxy.count.withLock { $0 } == 2)
            // The container's navigation policy: its own scheme loads (above), tel: goes to the host.
            _ = try await container.engine.evaluateJavaScript("location.href = 'tel:+15550100'; 1")
            try await waitUntil(timeout: .seconds(30)) {
                policyHost.external.map(\.url.absoluteString) == ["tel:+15550100"]
            }
            #expect(container.engine.title == "package main")

            // Version 2 arrives while the page is open.
            let second = RemoteConfig(
                version: 2, degradedPrefixes: ["\(prefix)legacy/"], hooks: ["fetch": false],
                bridgePermissions: ["camera": ["https://elsewhere.example"]],
                scripts: [
                    ReplacementScript(name: "marker", source: "window.marker = 'v2';", injectionTime: .documentStart)
                ])
            #expect(configs.offer(try SignedConfig.sign(second, with: keys)) == .updated(version: 2))
            try await waitUntil(timeout: .seconds(30)) { container.appliedConfigVersion == 2 }

            // At once, in the open page: the module is withdrawn; fetch goes to the engine, XHR still hooked.
            let denied = try await run("hybrid.call('camera', 'snap')")
            #expect(denied.hasPrefix("error") && denied.contains("camera"), "\(denied)")
            try await waitUntil(timeout: .seconds(30)) {
                try await container.engine.evaluateJavaScript("__hybridRequestSwitches.apis.fetch") == "false"
            }
            #expect(try await run(post("fetch")) == "ok echoed")
            #expect(proxy.count.withLock { $0 } == 2, "fetch no longer goes through the proxy")
            #expect(try await run(post("xhr")) == "ok echoed")
            #expect(proxy.count.withLock { $0 } == 3, "XHR still does")

            // The next documents: the replaced script, and the degraded page from the network.
            try await load("index.html", title: "package main")
            let marker = try await container.engine.evaluateJavaScript("window.marker")
            #expect(marker == "\"v2\"")
            let fetched = try await run(post("fetch"))
            #expect(fetched == "ok echoed")
            #expect(proxy.count.withLock { $0 } == 3, "fetch stays unhooked in a new document")
            try await load("legacy/index.html", title: "network legacy")
            #expect(try await container.engine.evaluateJavaScript("__hybridRequests.strategy") == "\"off\"")

            // A forged configuration changes nothing: the last good one stays.
            let forged = try SignedConfig.sign(RemoteConfig(version: 3), with: PackageKeyPair.generate())
            if case .updated = configs.offer(forged) { Issue.record("a configuration signed by another key was taken") }
            #expect(container.appliedConfigVersion == 2)
        }
    }
}
