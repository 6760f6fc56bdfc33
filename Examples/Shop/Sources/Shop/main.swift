// The shop on WebKitGTK: signed pages, a native cart, a sign-in and an upload, each checked by the page (exit 0: all).
import Foundation
import HybridKitGTK
import Hummingbird
import ShopCart

// The stand-in for the shop's server: a session (HttpOnly) and a visible theme cookie, and photo uploads.
let router = Router()
router.post("api/login") { _, _ in
    Response(status: .ok, headers: [.setCookie: "session=s3cret; Path=/; HttpOnly", .setCookie: "theme=green; Path=/"])
}
router.post("api/upload") { request, _ -> String in
    let bytes = try await request.body.collect(upTo: 8 << 20).readableBytes
    return #"{"bytes": \#(bytes), "signedIn": \#(request.headers[.cookie]?.contains("session=s3cret") == true)}"#
}
let (serverPorts, serverPort) = AsyncStream.makeStream(of: Int.self)
let server = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))) {
    serverPort.yield($0.localAddress?.port ?? 0)
}
Task { try await server.runService() }

@GTKActor func openShop(serverPort: Int) async throws -> [String: Bool]? {
    // The pages, signed and installed (a shipped app packs them at build time and embeds only the public key).
    let work = URL.temporaryDirectory.appending(path: "shop-\(UUID())"), zip = work.appending(path: "shop.zip")
    defer { try? FileManager.default.removeItem(at: work) }
    let keys = PackageKeyPair.generate(), version = SemanticVersion(major: 1, minor: 0, patch: 0)
    guard let pages = Bundle.module.url(forResource: "web", withExtension: nil),
        let site = URL(string: "https://shop.example/"), let entry = URL(string: "hybrid://shop.example/"),
        let server = URL(string: "http://127.0.0.1:\(serverPort)")
    else { return nil }
    let store = try PackageStore(root: work.appending(path: "store"), trustedKey: keys.verificationKey)  // makes `work`
    let options = PackOptions(id: "shop", version: version, serves: [site.absoluteString])
    try PackagePacker().pack(directory: pages, options: options, keyPair: keys, to: zip)
    let installer = PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: version)
    try installer.install(packageAt: zip)
    // hybrid://shop.example/… from the package, the rest (/api/…) from the server; body hooks and cookies built in.
    let packages = PackageServing(
        store: store, route: try OfflineRoute(prefixes: [site.absoluteString]),
        developmentOrigin: try DevelopmentOrigin(sending: site, to: server))
    let shop = try HybridContainer(
        configuration: ContainerConfiguration(
            modules: [Cart.module()], features: [packages], pageMessages: .origins("hybrid://shop.example")),
        factory: GTKEngineFactory())
    defer { shop.close() }
    try await shop.loadAndWait(entry)  // throws the typed reason when the page cannot load
    return try await shop.nextMessage("checks").decode([String: Bool].self)  // the page posts its checks when done
}

try GTKRuntime.shared.start(.headless)  // A desktop app calls start(): a real display, WebKit's sandbox on.
let port = await serverPorts.first { _ in true } ?? 0
let checks: [String: Bool]
do { checks = try await openShop(serverPort: port) ?? ["page answered": false] } catch { checks = ["\(error)": false] }
for (name, passed) in checks.sorted(by: { $0.key < $1.key }) { print(passed ? "PASS" : "FAIL", name) }
exit(checks.values.allSatisfy { $0 } ? 0 : 1)
