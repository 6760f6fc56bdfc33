#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridKit
import HybridKitGTK
import HybridNetwork
import HybridPackages
import HybridTestServers
import Synchronization

/// A container whose page follows a signed remote configuration, against a loopback server: packaged pages
/// (`main` and `legacy/`, each also on the network with another title), full-proxy hooks behind a proxy that
/// counts what it is handed, a `camera` bridge module open to the page, and a script registered as `marker`.
/// The demo and `ContainerGTKTests/RemoteConfigApplied` drive it.
@GTKActor
public final class RemoteConfigRig {
    public let container: HybridContainer
    public let configs: RemoteConfigStore
    /// Requests the hooks handed to native networking.
    public var proxied: Int { proxy.count.withLock { $0 } }
    /// The http prefix the packaged pages stand for (`http://127.0.0.1:<port>/app/`).
    public let prefix: String
    private let keys = PackageKeyPair.generate()
    private let proxy: CountingProxy
    private let server: LoopbackServer
    private let root: URL
    private let pageOrigin: String

    public init() async throws {
        try GTKRuntime.shared.start(.headless)
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-rc-\(UUID().uuidString)")
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
        server = try await LoopbackServer.start(serving: network) { router in
            router.post("/app/echo") { _, _ in "echoed" }
        }
        prefix = "\(server.origin)/app/"
        pageOrigin = "hybrid://127.0.0.1:\(server.port)"
        let store = try DemoPackage.install(
            site: site.appendingPathComponent("app"), id: "com.example.remote-config", serves: [prefix], in: root)
        let route = try OfflineRoute(prefixes: [prefix])
        let mapping = OfflineURLMapping(route: route)
        let pageURL: @Sendable (URL) -> URL? = { mapping.packageURL(for: $0) }
        proxy = CountingProxy(
            NativeProxy(policy: ProxyPolicy(allowedHosts: ["127.0.0.1"], allowedAddressKinds: [.loopback])))
        guard let nowhere = URL(string: "http://127.0.0.1:9/config") else { throw ContainerTour.Failure.badURL("") }
        configs = RemoteConfigStore(
            trustedKey: keys.verificationKey, source: nowhere,
            cache: ConfigCache(directory: root.appendingPathComponent("config")))
        let camera = BridgeModule("camera", access: .origins(pageOrigin)) { module in
            module.method("snap") { (_: NoArguments, _) in "snapped" }
        }
        container = try HybridContainer(
            configuration: ContainerConfiguration(
                modules: [camera],
                features: [
                    // Listed first on purpose: it configures the two after it whatever the order.
                    RemoteConfigApplication(
                        store: configs,
                        scripts: [NamedUserScript("marker", UserScript(source: "window.marker = 'app';"))]),
                    PackageServing(store: store, route: route),
                    RequestInterceptionFeature(
                        config: InterceptionConfig(defaultStrategy: .fullProxy), proxy: proxy, mapURL: pageURL),
                ],
                navigationPolicy: NavigationPolicyConfiguration()),
            factory: GTKEngineFactory())
    }

    /// Signs `config` with the app's key and offers it to the store (as a refresh would).
    @discardableResult
    public func publish(_ config: RemoteConfig) throws -> ConfigRefreshOutcome {
        configs.offer(try SignedConfig.sign(config, with: keys))
    }

    /// The same, signed with a key the app does not trust.
    public func publishForged(_ config: RemoteConfig) throws -> ConfigRefreshOutcome {
        configs.offer(try SignedConfig.sign(config, with: PackageKeyPair.generate()))
    }

    /// A replacement for the `marker` script that sets `window.marker` to `value` at document start.
    public nonisolated static func marker(_ value: String) -> ReplacementScript {
        ReplacementScript(name: "marker", source: "window.marker = '\(value)';", injectionTime: .documentStart)
    }

    /// Loads `path` under the package prefix and waits for a document titled `title`.
    public func load(_ path: String, title: String) async throws {
        // A title the next document cannot have, so the wait is for the new one.
        if container.engine.title != nil {
            _ = try await container.engine.evaluateJavaScript("document.title = 'leaving'; 1")
            guard await TourWait.until({ container.engine.title == "leaving" }) else {
                throw ContainerTour.Failure.timedOut("the old document's title")
            }
        }
        let text = "\(pageOrigin)/app/\(path)"
        guard let url = URL(string: text) else { throw ContainerTour.Failure.badURL(text) }
        try container.load(url)
        guard await TourWait.until({ container.engine.title == title }) else {
            throw ContainerTour.Failure.timedOut("'\(title)' (the title is '\(container.engine.title ?? "")')")
        }
    }

    /// Runs a promise-returning expression in the page: "ok <value>" or "error <message>".
    public func run(_ promise: String) async throws -> String {
        _ = try await container.engine.evaluateJavaScript(
            "window.answer = null; (\(promise)).then((v) => { window.answer = 'ok ' + v; }, "
                + "(e) => { window.answer = 'error ' + (e && e.message || e); }); 1")
        var answer = "null"
        guard
            await TourWait.until({
                answer = (try? await container.engine.evaluateJavaScript("window.answer")) ?? "null"
                return answer != "null"
            })
        else { throw ContainerTour.Failure.timedOut("the page's answer to \(promise.prefix(40))") }
        return try JSONDecoder().decode(String.self, from: Data(answer.utf8))
    }

    /// A bridge call to `camera.snap`.
    public func callCamera() async throws -> String { try await run("hybrid.call('camera', 'snap')") }

    /// A text POST to the server by `api` ("fetch" or "xhr").
    public func post(with api: String) async throws -> String {
        try await run(
            api == "fetch"
                ? "fetch('/app/echo', { method: 'POST', body: 'x' }).then((r) => r.text())"
                : "new Promise((resolve, reject) => { const x = new XMLHttpRequest(); x.open('POST', '/app/echo'); "
                    + "x.onload = () => resolve(x.responseText); x.onerror = () => reject(new Error('xhr failed')); "
                    + "x.send('x'); })")
    }

    /// Evaluates `script` and returns its JSON text.
    public func evaluate(_ script: String) async throws -> String? {
        try await container.engine.evaluateJavaScript(script)
    }

    public func close() {
        container.close()
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

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
}
#endif
