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
    // The pages, signed, and the public key: what a shipped app packs at build time (`hybrid keygen`, `hybrid pack`)
    // and carries in its bundle.
    let work = URL.temporaryDirectory.appending(path: "shop-\(UUID())")
    defer { try? FileManager.default.removeItem(at: work) }
    let (zip, publicKey) = (work.appending(path: "shop.zip"), work.appending(path: "shop.pub"))
    guard let pages = Bundle.module.url(forResource: "web", withExtension: nil),
        let server = URL(string: "http://127.0.0.1:\(serverPort)")
    else { return nil }
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let keys = PackageKeyPair.generate()
    try keys.verificationKey.save(to: publicKey)
    let options = PackOptions(
        id: "shop", version: SemanticVersion(major: 1, minor: 0, patch: 0), serves: ["https://shop.example/"])
    try PackagePacker().pack(directory: pages, options: options, keyPair: keys, to: zip)
    // The site, declared once: its address, its package (installed into a store on first launch), and where its
    // requests go while developing (/api/… to the loopback server). Body hooks and cookies come with it.
    let site = try HybridSite(
        "https://shop.example/",
        package: try .bundled(zip, publicKeyFile: publicKey, store: work.appending(path: "store")),
        developmentServer: server)
    let shop = try HybridContainer(site: site, modules: [Cart.module()], factory: GTKEngineFactory())
    defer { shop.close() }
    try await shop.loadAndWait(site.url)  // https://shop.example/, from the package; throws why it could not load
    return try await shop.nextMessage("checks").decode([String: Bool].self)  // the page posts its checks when done
}

try GTKRuntime.shared.start(.headless)  // A desktop app calls start(): a real display, WebKit's sandbox on.
let port = await serverPorts.first { _ in true } ?? 0
let checks: [String: Bool]
do { checks = try await openShop(serverPort: port) ?? ["page answered": false] } catch { checks = ["\(error)": false] }
for (name, passed) in checks.sorted(by: { $0.key < $1.key }) { print(passed ? "PASS" : "FAIL", name) }
exit(checks.values.allSatisfy { $0 } ? 0 : 1)
