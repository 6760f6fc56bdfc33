import Crypto
import Foundation
import HybridContainer
import HybridContainerGTK
import HybridCookieSync
import HybridCookies
import HybridCore
import HybridGTK
import HybridInterception
import HybridNetwork
import HybridOffline
import HybridTour
import Hummingbird
import Testing

/// The features wired together in one container, in real WebKitGTK: a package page whose ajax goes through the
/// full proxy with the cookie jar (direction 2 of the cookies issue), and whose `document.cookie` is the jar's.
extension ContainerGTKTests {
    @Suite struct Features {
        @Test @GTKActor func proxiedAjaxCarriesTheJarsCookiesAndDocumentCookieShowsOnlyVisibleOnes() async throws {
            try GTKRuntime.shared.start()
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-feat-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let site = root.appendingPathComponent("site")
            try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
            try Data("<!doctype html><title>features</title>".utf8).write(to: site.appendingPathComponent("index.html"))
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("network"), withIntermediateDirectories: true)
            // Answers with the Cookie header it got and what the body hashed to; sets a cookie of its own.
            let server = try await LoopbackServer.start(serving: root.appendingPathComponent("network")) { router in
                router.post("/app/whoami") { request, _ in
                    let body = try await request.body.collect(upTo: 1 << 20)
                    let digest = SHA256.hash(data: Data(buffer: body)).map { String(format: "%02x", $0) }.joined()
                    var headers = HTTPFields()
                    headers[.setCookie] = "fromAjax=yes; Path=/; HttpOnly"
                    let text = "\(request.headers[.cookie] ?? "")|\(digest)"
                    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
                }
            }
            defer { server.stop() }
            let prefix = "\(server.origin)/app/"
            let store = try installTestPackage(site: site, id: "com.example.features", serves: [prefix], in: root)
            let route = try OfflineRoute(prefixes: [prefix])
            let mapping = OfflineURLMapping(route: route)
            let site0 = try #require(URL(string: prefix))
            let jar = CookieJar()
            jar.setCookie("session=s3cret; Path=/; HttpOnly", for: .http(site0))
            jar.setCookie("theme=dark; Path=/", for: .http(site0))
            let pageURL: @Sendable (URL) -> URL? = { mapping.packageURL(for: $0) }
            let proxy = NativeProxy(
                policy: ProxyPolicy(allowedHosts: ["127.0.0.1"], allowedAddressKinds: [.loopback]),
                cookies: JarCookieHandler(jar: jar, pageURL: pageURL))

            let events = PagePosts()
            let container = try HybridContainer(
                configuration: ContainerConfiguration(
                    packages: PackageServing(store: store, route: route),
                    features: [
                        RequestInterceptionFeature(
                            config: InterceptionConfig(defaultStrategy: .fullProxy), proxy: proxy, mapURL: pageURL),
                        DocumentCookieFeature(
                            bridge: DocumentCookieBridge(jar: jar, scheme: "hybrid", pageURL: pageURL)),
                    ]),
                factory: GTKEngineFactory())
            container.navigationDelegate = events
            defer { container.close() }
            try container.load(try #require(URL(string: "hybrid://127.0.0.1:\(server.port)/app/index.html")))
            try await waitUntil(timeout: .seconds(30)) { container.engine.title == "features" }

            // A Blob body (the kind that crashes an unprotected handler), proxied natively with the jar's cookies.
            _ = try await container.engine.evaluateJavaScript(
                """
                window.answer = null;
                fetch('/app/whoami', { method: 'POST', body: new Blob(['hello, proxy']) })
                  .then((r) => r.text()).then((t) => { window.answer = t; }, (e) => { window.answer = 'error ' + e; });
                1
                """)
            try await waitUntil(timeout: .seconds(30)) {
                (try? await container.engine.evaluateJavaScript("window.answer !== null")) == "true"
            }
            let answer = try #require(try await container.engine.evaluateJavaScript("window.answer"))
            let expectedDigest = SHA256.hash(data: Data("hello, proxy".utf8)).map { String(format: "%02x", $0) }
                .joined()
            #expect(answer.contains("session=s3cret"), "the HttpOnly session travelled: \(answer)")
            #expect(answer.contains("theme=dark"), "\(answer)")
            #expect(answer.contains(expectedDigest), "the exact bytes arrived: \(answer)")
            // The response's Set-Cookie went into the jar, and never reached the page.
            #expect(jar.allCookies().contains { $0.name == "fromAjax" && $0.httpOnly })

            // document.cookie is the jar's, without HttpOnly cookies; a page write reaches the jar.
            try await waitUntil(timeout: .seconds(30)) {
                (try? await container.engine.evaluateJavaScript("document.cookie")) == "\"theme=dark\""
            }
            _ = try await container.engine.evaluateJavaScript("document.cookie = 'fromPage=1; path=/'; 1")
            try await waitUntil(timeout: .seconds(30)) {
                jar.cookieHeader(for: .http(site0))?.contains("fromPage=1") == true
            }
        }
    }
}
