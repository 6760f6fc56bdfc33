#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
// Deliberately imports nothing of HybridKit but the engine module: it stands for a host app, which must get a
// container with packages, request bodies, cookies and remote configuration from `import HybridKitGTK` alone
// (HybridKitGTK re-exports HybridKit, which re-exports HybridPackages and HybridCookies). A type this file needs
// from another module fails to compile here.
import Foundation
import HybridKitGTK
import Testing

@Suite(.timeLimit(.minutes(2))) struct TwoImportsHostTests {
    @Test @GTKActor func aContainerWithEveryFeatureNeedsOnlyTheEngineModule() async throws {
        try GTKRuntime.shared.start(.headless)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("two-imports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data("<!doctype html><title>shop</title><p>shop".utf8).write(to: site.appendingPathComponent("index.html"))

        // A signed package, installed (HybridPackages).
        let prefix = "https://shop.example/app/"
        let keys = PackageKeyPair.generate()
        let version = SemanticVersion(major: 1, minor: 0, patch: 0)
        let zip = root.appendingPathComponent("shop.zip")
        try PackagePacker().pack(
            directory: site, options: PackOptions(id: "com.example.shop", version: version, serves: [prefix]),
            keyPair: keys, to: zip)
        let store = try PackageStore(root: root.appendingPathComponent("store"), trustedKey: keys.verificationKey)
        try PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: version)
            .install(packageAt: zip)
        let route = try OfflineRoute(prefixes: [prefix])
        let mapping = OfflineURLMapping(route: route)
        let pageURL: @Sendable (URL) -> URL? = { mapping.packageURL(for: $0) }

        // The jar behind document.cookie (HybridCookies), with an HttpOnly session the page must not see.
        let jar = CookieJar()
        let origin = try #require(URL(string: prefix))
        jar.setCookie("session=s3cret; Path=/; HttpOnly", for: .http(origin))

        // A signed remote configuration that switches the fetch hook off (HybridKit).
        let configs = RemoteConfigStore(
            trustedKey: keys.verificationKey, source: try #require(URL(string: "https://config.invalid/c.json")),
            cache: ConfigCache(directory: root.appendingPathComponent("config")))
        #expect(
            configs.offer(try SignedConfig.sign(RemoteConfig(version: 1, hooks: ["fetch": false]), with: keys))
                == .updated(version: 1))

        let cart = BridgeModule("cart", access: .anyPage) { module in
            module.method("count") { (_: NoArguments, _) in 3 }
        }
        let container = try HybridContainer(
            configuration: ContainerConfiguration(
                modules: [cart],
                features: [
                    RemoteConfigApplication(store: configs),
                    PackageServing(store: store, route: route),
                    RequestInterceptionFeature(mapURL: pageURL),
                    DocumentCookieFeature(bridge: DocumentCookieBridge(jar: jar, scheme: "hybrid", pageURL: pageURL)),
                ]),
            factory: GTKEngineFactory())
        defer { container.close() }
        try container.load(try #require(URL(string: "hybrid://shop.example/app/index.html")))

        func evaluate(_ script: String) async -> String? { try? await container.engine.evaluateJavaScript(script) }
        try await waitUntil(timeout: .seconds(30)) { await evaluate("document.title") == #""shop""# }
        #expect(container.appliedConfigVersion == 1)

        // The bridge answers; the hooks run with the configuration's switches; the cookie shim shows the jar.
        _ = await evaluate("hybrid.call('cart', 'count').then(n => { window.count = n })")
        try await waitUntil(timeout: .seconds(10)) { await evaluate("window.count") == "3" }
        #expect(await evaluate("window.__hybridRequests.enabled") == "true")
        _ = await evaluate("hybridCookies.ready.then(() => { document.cookie = 'theme=dark; Path=/' })")
        try await waitUntil(timeout: .seconds(10)) {
            jar.cookies(for: .http(origin)).contains { $0.name == "theme" && $0.value == "dark" }
        }
        let visible = try #require(await evaluate("document.cookie"))
        #expect(visible.contains("theme=dark"))
        #expect(!visible.contains("s3cret"), "an HttpOnly cookie reached the page: \(visible)")
    }
}
#endif
