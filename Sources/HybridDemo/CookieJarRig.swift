#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Crypto
import Foundation
import Hummingbird
import HybridCookies
import HybridKit
import HybridKitGTK
import HybridNetwork
import HybridTestServers

/// A package page in a container with request interception (full proxy) and the jar behind `document.cookie`,
/// against a loopback server that answers with the `Cookie` header it got and the SHA-256 of the body, and sets
/// an HttpOnly cookie. The demo and `ContainerGTKTests/Features` drive it.
@GTKActor
public final class CookieJarRig {
    public let jar = CookieJar()
    public let container: HybridContainer
    /// The http URL the package pages stand for (`http://127.0.0.1:<port>/app/`).
    public let site: URL
    private let server: LoopbackServer
    private let root: URL

    public init() async throws {
        try GTKRuntime.shared.start(.headless)
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-jar-\(UUID().uuidString)")
        let pages = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        try Data("<!doctype html><title>features</title>".utf8).write(to: pages.appendingPathComponent("index.html"))
        let network = root.appendingPathComponent("network")
        try FileManager.default.createDirectory(at: network, withIntermediateDirectories: true)
        server = try await LoopbackServer.start(serving: network) { router in
            router.post("/app/whoami") { request, _ in
                let body = try await request.body.collect(upTo: 1 << 20)
                var headers = HTTPFields()
                headers[.setCookie] = "fromAjax=yes; Path=/; HttpOnly"
                let text = "\(request.headers[.cookie] ?? "")|\(CookieJarRig.sha256(Data(buffer: body)))"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
            }
        }
        let prefix = "\(server.origin)/app/"
        guard let site = URL(string: prefix) else { throw ContainerTour.Failure.badURL(prefix) }
        self.site = site
        let store = try DemoPackage.install(site: pages, id: "com.example.features", serves: [prefix], in: root)
        let route = try OfflineRoute(prefixes: [prefix])
        let mapping = OfflineURLMapping(route: route)
        let pageURL: @Sendable (URL) -> URL? = { mapping.packageURL(for: $0) }
        // The proxy may reach only the loopback server, and takes its cookies from the jar at every hop.
        let proxy = NativeProxy(
            policy: ProxyPolicy(allowedHosts: ["127.0.0.1"], allowedAddressKinds: [.loopback]),
            cookies: JarCookieHandler(jar: jar, pageURL: pageURL))
        container = try HybridContainer(
            configuration: ContainerConfiguration(
                features: [
                    PackageServing(store: store, route: route),
                    RequestInterceptionFeature(
                        config: InterceptionConfig(defaultStrategy: .fullProxy), proxy: proxy, mapURL: pageURL),
                    DocumentCookieFeature(bridge: DocumentCookieBridge(jar: jar, scheme: "hybrid", pageURL: pageURL)),
                ]),
            factory: GTKEngineFactory())
    }

    /// Loads the package page and waits for it.
    public func loadPage() async throws {
        guard let url = URL(string: "hybrid://127.0.0.1:\(server.port)/app/index.html") else {
            throw ContainerTour.Failure.badURL("hybrid://127.0.0.1:\(server.port)/app/index.html")
        }
        try container.load(url)
        guard await TourWait.until({ container.engine.title == "features" }) else {
            throw ContainerTour.Failure.timedOut("the package page")
        }
    }

    /// POSTs `text` as a Blob from the page (full proxy) and returns what the server answered:
    /// `<Cookie header>|<sha256 of the body>`.
    public func postBlob(_ text: String) async throws -> String {
        let literal = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
        _ = try await container.engine.evaluateJavaScript(
            """
            window.answer = null;
            fetch('/app/whoami', { method: 'POST', body: new Blob([\(literal)]) })
              .then((r) => r.text()).then((t) => { window.answer = t; }, (e) => { window.answer = 'error ' + e; });
            1
            """)
        guard
            await TourWait.until({
                (try? await container.engine.evaluateJavaScript("window.answer !== null")) == "true"
            })
        else { throw ContainerTour.Failure.timedOut("the proxied POST") }
        let json = try await container.engine.evaluateJavaScript("window.answer") ?? "null"
        return try JSONDecoder().decode(String.self, from: Data(json.utf8))
    }

    /// What `document.cookie` shows once it equals `expected` (or after the wait, whatever it shows).
    public func documentCookie(becoming expected: String) async -> String {
        var seen = ""
        _ = await TourWait.until {
            let json = (try? await container.engine.evaluateJavaScript("document.cookie")) ?? "null"
            seen = (try? JSONDecoder().decode(String.self, from: Data(json.utf8))) ?? json
            return seen == expected
        }
        return seen
    }

    public func close() {
        container.close()
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    public nonisolated static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
#endif
