#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridNetwork
import HybridPackages
import HybridTestServers
import HybridTestSupport
import Hummingbird
import Testing

/// A site declared once, in real WebKitGTK: its https address loads from its signed package, `.site` access and
/// page messages reach its pages and only them, its requests go to a development server, a page its package lacks
/// loads at its own origin without the site's access, and each mistake says what to change.
extension ContainerGTKTests {
    @Suite struct Sites {
        struct Item: Codable { let name: String }
        struct Summary: Codable { let count: Int }

        /// The site's signed package (a page that runs its checks and posts them) and a development server with
        /// an API answer and a page the package does not hold.
        final class Fixture {
            let work = URL.temporaryDirectory.appending(path: "site-\(UUID())")
            let keys = PackageKeyPair.generate()
            let server: LoopbackServer
            let site: HybridSite

            /// - Parameter servedBySite: the site's address is the server's own (no development server), as the
            ///   native proxy needs: it sends requests where their URL says.
            @GTKActor init(servedBySite: Bool = false) async throws {
                try GTKRuntime.shared.start(.headless)
                let pages = work.appending(path: "pages"), served = work.appending(path: "server")
                try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
                try FileManager.default.createDirectory(
                    at: served.appending(path: "api"), withIntermediateDirectories: true)
                try Data(Self.checksPage.utf8).write(to: pages.appending(path: "index.html"))
                try Data("hello from the server".utf8).write(to: served.appending(path: "api/hello"))
                try Data("<!doctype html><title>live</title>live".utf8).write(to: served.appending(path: "live.html"))
                // Each answer sets a cookie named by the request, as a sign-in would.
                server = try await LoopbackServer.start(serving: served) { router in
                    let setCookie: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
                        let value = request.uri.queryParameters.get("v") ?? "none"
                        return Response(status: .ok, headers: [.setCookie: "c=\(value); Path=/"])
                    }
                    router.get("api/set", use: setCookie)
                    router.post("api/set", use: setCookie)
                    // A form's answer that redirects to a page naming the method and body length it got.
                    router.post("form/:code") { request, context in
                        var request = request
                        _ = try await request.collectBody(upTo: 1 << 20)
                        let code = context.parameters.get("code", as: Int.self) ?? 302
                        return Response(
                            status: HTTPResponse.Status(code: code), headers: [.location: "/landing?code=\(code)"])
                    }
                    let landing: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
                        var request = request
                        let body = try await request.collectBody(upTo: 1 << 20)
                        let title = "landing \(request.method.rawValue) \(body.readableBytes)"
                        return Response(
                            status: .ok, headers: [.contentType: "text/html"],
                            body: .init(byteBuffer: ByteBuffer(string: "<!doctype html><title>\(title)</title>")))
                    }
                    router.get("landing", use: landing)
                    router.post("landing", use: landing)
                }
                let address = servedBySite ? server.origin + "/" : "https://shop.example/"
                let zip = work.appending(path: "shop.zip")
                try PackagePacker().pack(
                    directory: pages,
                    options: PackOptions(
                        id: "shop", version: SemanticVersion(major: 1, minor: 0, patch: 0), serves: [address]),
                    keyPair: keys, to: zip)
                site = try HybridSite(
                    address,
                    package: .bundled(zip, trustedKey: keys.verificationKey, store: work.appending(path: "store")),
                    developmentServer: servedBySite ? nil : try #require(URL(string: server.origin)))
            }

            func close() {
                server.stop()
                try? FileManager.default.removeItem(at: work)
            }

            static let checksPage = """
                <!doctype html><meta charset="utf-8"><title>shop</title>
                <script>
                (async () => {
                  const checks = { origin: location.origin };
                  try { checks.cart = String((await hybrid.call('cart', 'add', { name: 'tea' })).count); }
                  catch (e) { checks.cart = String(e.code); }
                  try { await hybrid.call('spelled', 'ping', {}); checks.spelled = 'ok'; }
                  catch (e) { checks.spelled = String(e.code); }
                  try { checks.api = await (await fetch('/api/hello')).text(); } catch (e) { checks.api = String(e); }
                  hybrid.post('checks', checks);
                })();
                </script>
                """
        }

        static func modules() -> [BridgeModule] {
            [
                BridgeModule("cart", access: .site) { module in
                    module.method("add") { (_: Item, _) in Summary(count: 1) }
                },
                // The mistake the site removes: naming the site by its address.
                BridgeModule("spelled", access: .origins("https://shop.example")) { module in
                    module.method("ping") { (_: NoArguments, _) in true }
                },
            ]
        }

        /// Runs `expression` (a promise) in the page and returns "ok" or the rejection's code.
        @GTKActor static func settle(_ expression: String, in container: HybridContainer) async throws -> String {
            try await ContainerGTKTests.PageMessages.settle(expression, in: container)
        }

        @Test @GTKActor func theSiteSAddressLoadsFromItsPackageAndItsPagesGetTheSiteSAccess() async throws {
            let logs = LogCapture.installed()
            logs.reset()
            let fixture = try await Fixture()
            let container = try HybridContainer(
                site: fixture.site, modules: Self.modules(), factory: GTKEngineFactory())
            try await container.loadAndWait(fixture.site.url)
            let checks = try await container.nextMessage("checks").decode([String: String].self)
            container.close()
            fixture.close()
            #expect(fixture.site.url.absoluteString == "https://shop.example/")
            #expect(checks["origin"] == "hybrid://shop.example")
            #expect(checks["cart"] == "1")
            #expect(checks["api"] == "hello from the server")
            #expect(checks["spelled"] == "denied")
            // The refusal names the fix.
            let advice = logs.messages("hybrid.bridge").filter { $0.contains("name the site instead") }
            #expect(advice.count == 1, "\(logs.messages("hybrid.bridge"))")
        }

        /// A form post answered with a redirect, the way sign-in forms end (post, redirect, get): the view ends at
        /// the redirect's URL after a 301, 302 or 303, loaded as a GET, as in a browser (not at the posted URL with
        /// the final page in it). A 307 or 308 sends the body again, natively, and shows the posted URL.
        @Test(arguments: [301, 302, 303, 307, 308]) @GTKActor
        func aFormPostThatRedirectsEndsWhereABrowserWould(code: Int) async throws {
            let fixture = try await Fixture()
            defer { fixture.close() }
            let container = try HybridContainer(
                site: fixture.site, modules: Self.modules(), factory: GTKEngineFactory())
            defer { container.close() }
            try await container.loadAndWait(fixture.site.url)
            _ = try await container.evaluate(
                """
                (() => {
                  const form = document.createElement('form');
                  form.method = 'post'; form.action = '/form/\(code)?x=%2B';
                  const field = document.createElement('input'); field.name = 'who'; field.value = 'zoë';
                  form.appendChild(field); document.body.appendChild(form);
                  form.requestSubmit();
                  return true;
                })()
                """, as: Bool.self)
            try await waitUntil(timeout: .seconds(20)) {
                (try? await container.evaluate("document.title.startsWith('landing')", as: Bool.self)) == true
            }
            let title = try await container.evaluate("document.title", as: String.self)
            let href = try await container.evaluate("location.href", as: String.self)
            let history = try await container.evaluate("history.length", as: Int.self)
            if code >= 307 {
                #expect(title == "landing POST 12")
                #expect(href == "hybrid://shop.example/form/\(code)?x=%2B")
            } else {
                #expect(title == "landing GET 0")
                // A page the package lacks, loaded as a GET main document: at its own origin (see the test below).
                #expect(href == "\(fixture.server.origin)/landing?code=\(code)")
            }
            #expect(history == 2, "the form's page and the answer")
        }

        @Test @GTKActor func aPageThePackageLacksLoadsAtItsOwnOriginWithNoneOfTheSiteSAccess() async throws {
            let fixture = try await Fixture()
            let container = try HybridContainer(
                site: fixture.site, modules: Self.modules(), factory: GTKEngineFactory())
            let messages = try container.messages("checks")
            try await container.loadAndWait(fixture.site.url.appending(path: "live.html"))
            let origin = try await container.evaluate("location.origin", as: String.self)
            let cart = try await Self.settle("hybrid.call('cart', 'add', {name: 'tea'})", in: container)
            let post = try await Self.settle("hybrid.post('checks', {forged: true})", in: container)
            container.close()
            fixture.close()
            #expect(origin == fixture.server.origin)
            #expect(cart == "denied")
            #expect(post == "denied")
            var received: [PageMessage] = []
            for await message in messages { received.append(message) }
            #expect(received.isEmpty, "\(received)")
        }

        /// A `Set-Cookie` on a response that passes through native code is in `document.cookie` by the time the
        /// page's `fetch` resolves, and when its XHR reaches HEADERS_RECEIVED: every time, not eventually.
        /// Both ways a request passes through native code: bodies by id (the site's default) and the full proxy.
        @Test(arguments: [false, true]) @GTKActor
        func aResponseSCookieIsInDocumentCookieWhenThePageSeesTheResponse(proxied: Bool) async throws {
            let fixture = try await Fixture(servedBySite: proxied)
            defer { fixture.close() }
            let jar = CookieJar()
            let mapping = OfflineURLMapping(route: fixture.site.route)
            // The proxy reaches the loopback site, with the page's jar.
            let proxy = NativeProxy(
                policy: ProxyPolicy(allowedHosts: ["127.0.0.1"], allowedAddressKinds: [.loopback]),
                cookies: JarCookieHandler(jar: jar, pageURL: { mapping.packageURL(for: $0) }))
            let hooks = RequestInterceptionFeature(
                config: InterceptionConfig(defaultStrategy: .fullProxy), proxy: proxy,
                mapURL: { mapping.packageURL(for: $0) })
            let container = try HybridContainer(
                configuration: ContainerConfiguration(
                    site: fixture.site, modules: Self.modules(), features: proxied ? [hooks] : [],
                    documentCookies: .automatic(jar: jar), pageMessages: .site),
                factory: GTKEngineFactory())
            defer { container.close() }
            try await container.loadAndWait(fixture.site.url)
            _ = try await container.nextMessage("checks")
            _ = try await container.evaluate(
                """
                (async () => {
                  await hybridCookies.ready;
                  const seen = [];
                  for (let i = 0; i < 20; i++) {
                    await fetch('/api/set?v=f' + i);
                    seen.push(document.cookie.includes('c=f' + i));
                  }
                  // With a body: the hooks store it, the engine's request carries its id.
                  for (let i = 0; i < 10; i++) {
                    const body = new FormData();
                    body.append('photo', new Blob([new Uint8Array(4096)]), 'p.bin');
                    await fetch('/api/set?v=p' + i, { method: 'POST', body });
                    seen.push(document.cookie.includes('c=p' + i));
                  }
                  for (let i = 0; i < 10; i++) {
                    await new Promise((resolve) => {
                      const xhr = new XMLHttpRequest();
                      xhr.open('GET', '/api/set?v=x' + i);
                      xhr.onreadystatechange = () => {
                        if (xhr.readyState === 2) seen.push(document.cookie.includes('c=x' + i));
                        if (xhr.readyState === 4) resolve();
                      };
                      xhr.send();
                    });
                  }
                  hybrid.post('timing', seen.map((ok) => (ok ? 1 : 0)).join(''));
                })();
                true
                """, as: Bool.self)
            let seen = try await container.nextMessage("timing").decode(String.self)
            #expect(seen == String(repeating: "1", count: 40), "\(seen): 0 marks a response seen before its cookie")
        }

        @Test @GTKActor func aViewTheHostMadeIsTypedAndBelongsToOneContainer() async throws {
            let fixture = try await Fixture()
            let view: GTKWebView = GTKEngineFactory().makeGTKWebView()
            let container = try HybridContainer(
                configuration: ContainerConfiguration(site: fixture.site, modules: Self.modules()), engine: view)
            #expect(throws: ContainerError.self) {
                try HybridContainer(configuration: ContainerConfiguration(), engine: view)
            }
            // A view a factory made for another container is that container's too.
            let other = try HybridContainer(configuration: ContainerConfiguration(), factory: GTKEngineFactory())
            defer { other.close() }
            #expect {
                try HybridContainer(configuration: ContainerConfiguration(), engine: other.engine)
            } throws: { error in
                guard case ContainerError.engineInUse = error else { return false }
                return true
            }
            try await container.loadAndWait(fixture.site.url)
            #expect(try await view.evaluateJavaScript("location.origin", as: String.self) == "hybrid://shop.example")
            container.close()
            fixture.close()
        }

        @Test @GTKActor func aFailedLoadThrowsItsReasonAndIsLogged() async throws {
            let logs = LogCapture.installed()
            logs.reset()
            let fixture = try await Fixture()
            await fixture.server.shutdown()  // gone for good before the load, not on its way out
            let container = try HybridContainer(
                site: fixture.site, modules: Self.modules(), factory: GTKEngineFactory())
            defer { container.close() }
            // The package lacks the page and the development server is gone.
            let refused = try #require(URL(string: fixture.server.origin + "/nothing.html"))
            await #expect(throws: PageLoadFailure.self) {
                try await container.loadAndWait(refused, timeout: .seconds(20))
            }
            let warnings = logs.messages("hybrid.page").filter { $0.hasPrefix("page load network") }
            #expect(warnings.count == 1, "\(logs.messages("hybrid.page"))")
            #expect(warnings.first?.contains("check the URL and the server") == true)
            fixture.close()
        }
    }
}
#endif
