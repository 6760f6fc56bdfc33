#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridCookies
import HybridKitGTK
import Testing

/// The cookie tests in WebKitGTK run one at a time, and never while another test wipes the engine's cookies: every
/// web view of the process shares one engine cookie store, and each test's jar is synced with it.
@Suite(.serialized, .engineCookieStoreExclusive) enum CookieGTKTests {}

/// The jar synced with real WebKitGTK, for pages the engine loads itself over http (127.0.0.1 and 127.0.0.2),
/// and with native requests (the fetcher behind the package handler).
extension CookieGTKTests {
    @Suite struct CookieSyncGTKTests {
        @Test @GTKActor func nativeLoginHttpOnlyCookieRidesPageRequestsButStaysOutOfDocumentCookie() async throws {
            let root = try temporaryRoot("cookies-login")
            defer { try? FileManager.default.removeItem(at: root) }
            let sites = try await CookieSites.start(root: root)
            defer { sites.stop() }
            let tag = cookieTag()
            let app = try await CookieHarness(jar: CookieJar(), sites: sites, root: root)
            defer { app.close() }

            // Native login: the server sets an HttpOnly session cookie and a visible one, into the jar.
            _ = try await app.nativeGET(
                CookieSites.setURL(sites.a, "session\(tag)=secret; HttpOnly; Path=/", "visible\(tag)=1; Path=/"))
            await app.sync.settle()

            let page = try #require(URL(string: sites.a.origin + "/page.html"))
            try await app.load(page)
            // Direction 1: the page's very first request carried the jar's cookies, HttpOnly included.
            let first = try #require(sites.hits.cookie(host: "127.0.0.1", path: "/page.html"))
            #expect(first.contains("session\(tag)=secret"))
            #expect(first.contains("visible\(tag)=1"))
            // Direction 7: an ajax request carries the HttpOnly cookie; document.cookie never shows it.
            let echoed = try await app.fetchInPage("/echo")
            #expect(echoed.contains("session\(tag)=secret"))
            let documentCookie = try await app.documentCookie
            #expect(documentCookie.contains("visible\(tag)=1"))
            #expect(!documentCookie.contains("session\(tag)"))
        }

        @Test @GTKActor func pageAndAjaxCookiesReachTheJarAndNativeRequests() async throws {
            let root = try temporaryRoot("cookies-page")
            defer { try? FileManager.default.removeItem(at: root) }
            let sites = try await CookieSites.start(root: root)
            defer { sites.stop() }
            let tag = cookieTag()
            let jar = CookieJar()
            let app = try await CookieHarness(jar: jar, sites: sites, root: root)
            defer { app.close() }
            let siteA = try #require(URL(string: sites.a.origin + "/echo"))
            try await app.load(try #require(URL(string: sites.a.origin + "/page.html")))

            // Direction 5: document.cookie on a page the engine loaded → engine store → jar → native request.
            try await app.js("document.cookie = 'fromPage\(tag)=2; path=/'")
            try await waitUntil(timeout: .seconds(10)) {
                jar.cookieHeader(for: .http(siteA))?.contains("fromPage\(tag)=2") == true
            }
            #expect(try await app.nativeGET(siteA).contains("fromPage\(tag)=2"))

            // Direction 6: Set-Cookie on an ajax response the engine handled, HttpOnly kept HttpOnly.
            let ajax = CookieSites.setURL(sites.a, "ajax\(tag)=3; Path=/", "ajaxHidden\(tag)=4; HttpOnly; Path=/")
            #expect(try await app.fetchInPage(ajax.absoluteString) == "ok")
            try await waitUntil(timeout: .seconds(10)) {
                jar.allCookies().contains { $0.name == "ajaxHidden\(tag)" }
                    && jar.allCookies().contains { $0.name == "ajax\(tag)" }
            }
            #expect(jar.allCookies().first { $0.name == "ajaxHidden\(tag)" }?.httpOnly == true)
            #expect(!(try await app.documentCookie).contains("ajaxHidden\(tag)"))
            #expect(try await app.nativeGET(siteA).contains("ajax\(tag)=3"))
        }

        @Test @GTKActor func aRedirectChainAcrossTwoHostsCarriesTheRightCookiesAtEveryHop() async throws {
            let root = try temporaryRoot("cookies-302")
            defer { try? FileManager.default.removeItem(at: root) }
            let sites = try await CookieSites.start(root: root)
            defer { sites.stop() }
            let tag = cookieTag()
            let jar = CookieJar()
            let app = try await CookieHarness(jar: jar, sites: sites, root: root)
            defer { app.close() }
            jar.setCookie("a\(tag)=A; Path=/", for: .http(try #require(URL(string: sites.a.origin + "/"))))
            jar.setCookie("b\(tag)=B; Path=/", for: .http(try #require(URL(string: sites.b.origin + "/"))))
            await app.sync.settle()

            // A /redirect (sets hopA) → B /redirect (sets hopB) → A /echo.
            func chain(_ hop: String) throws -> URL {
                let final = try #require(URL(string: sites.a.origin + "/echo"))
                let middle = CookieSites.redirectURL(sites.b, to: final, "\(hop)B\(tag)=1; Path=/")
                return CookieSites.redirectURL(sites.a, to: middle, "\(hop)A\(tag)=1; Path=/")
            }
            /// Checks the Cookie header of each hop among the requests made after the first `since`.
            func expectHops(_ hop: String, since: Int) {
                let hits = sites.hits.all.dropFirst(since)
                func cookie(_ host: String, _ path: String) -> String {
                    hits.last { $0.host == host && $0.path == path }?.cookie ?? "(no request)"
                }
                let first = cookie("127.0.0.1", "/redirect")
                let middle = cookie("127.0.0.2", "/redirect")
                let last = cookie("127.0.0.1", "/echo")
                #expect(first.contains("a\(tag)=A") && !first.contains("b\(tag)"), "first hop: \(first)")
                #expect(
                    middle.contains("b\(tag)=B") && !middle.contains("a\(tag)") && !middle.contains("\(hop)A\(tag)"),
                    "second hop: \(middle)")
                #expect(last.contains("a\(tag)=A") && last.contains("\(hop)A\(tag)=1"), "last hop: \(last)")
                #expect(!last.contains("b\(tag)") && !last.contains("\(hop)B\(tag)"), "last hop: \(last)")
            }

            // Navigated by the engine (a page it loads itself).
            var before = sites.hits.all.count
            try await app.load(try chain("engine"))
            #expect(app.view.url?.absoluteString == sites.a.origin + "/echo")
            expectHops("engine", since: before)
            // The Set-Cookie of each redirect response, seen by the engine, reaches the jar (direction 4).
            try await waitUntil(timeout: .seconds(10)) {
                let names = Set(jar.allCookies().map(\.name))
                return names.contains("engineA\(tag)") && names.contains("engineB\(tag)")
            }
            #expect(jar.allCookies().first { $0.name == "engineB\(tag)" }?.domain == "127.0.0.2")

            // Followed natively (what a custom-scheme page's sub-resources and native code use): each hop's Cookie
            // header is the jar's for that hop's host, cookies set on earlier hops included.
            before = sites.hits.all.count
            _ = try await app.nativeGET(try chain("native"))
            expectHops("native", since: before)
            #expect(jar.allCookies().first { $0.name == "nativeB\(tag)" }?.domain == "127.0.0.2")
        }

        @Test @GTKActor func deletionsOnEitherSideReachTheOther() async throws {
            let root = try temporaryRoot("cookies-delete")
            defer { try? FileManager.default.removeItem(at: root) }
            let sites = try await CookieSites.start(root: root)
            defer { sites.stop() }
            let tag = cookieTag()
            let jar = CookieJar()
            let app = try await CookieHarness(jar: jar, sites: sites, root: root)
            defer { app.close() }
            let siteA = try #require(URL(string: sites.a.origin + "/"))
            jar.setCookie("native\(tag)=1; Path=/", for: .http(siteA))
            await app.sync.settle()
            try await app.load(try #require(URL(string: sites.a.origin + "/page.html")))
            #expect(try await app.documentCookie.contains("native\(tag)=1"))

            // Jar → engine.
            jar.deleteCookie(name: "native\(tag)", domain: "127.0.0.1", path: "/")
            await app.sync.settle()
            // The engine's store has dropped it; its web process learns of that a moment later (WebKit keeps a cookie
            // cache there for document.cookie).
            try await app.waitFor("!document.cookie.includes('native\(tag)')", timeout: .seconds(10))
            #expect(!(try await app.fetchInPage("/echo")).contains("native\(tag)"))

            // Engine → jar: the page sets, then expires, a cookie.
            try await app.js("document.cookie = 'paged\(tag)=1; path=/'")
            try await waitUntil(timeout: .seconds(10)) { jar.allCookies().contains { $0.name == "paged\(tag)" } }
            try await app.js("document.cookie = 'paged\(tag)=; path=/; max-age=0'")
            try await waitUntil(timeout: .seconds(10)) { !jar.allCookies().contains { $0.name == "paged\(tag)" } }
            #expect(!(try await app.nativeGET(siteA.appendingPathComponent("echo"))).contains("paged\(tag)"))
        }

        /// Run on a custom-scheme page, where WebKit keeps no cookies at all (`webKitKeepsNoCookiesForACustomSchemePage`)
        /// and `document.cookie` is HybridKit's shim over the jar: the refusal is the jar's own domain check, not the
        /// engine's. (On an http page WebKit refuses such a write before the jar could see it.)
        @Test @GTKActor func aPageCannotSetACookieForAnotherSite() async throws {
            let root = try temporaryRoot("cookies-other-site")
            defer { try? FileManager.default.removeItem(at: root) }
            let sites = try await CookieSites.start(root: root)
            defer { sites.stop() }
            let tag = cookieTag()
            let jar = CookieJar()
            let app = try await CookieHarness(jar: jar, sites: sites, root: root)
            defer { app.close() }
            try await app.load(try #require(URL(string: "hybrid://127.0.0.1:\(sites.a.port)/index.html")))
            try await app.js("window.hybridCookies.ready.then(() => { window.__cookiesReady = true; }); true")
            try await app.waitFor("window.__cookiesReady")

            // The shim's own write call, to read native's answer for each cookie string.
            try await app.js(
                """
                window.__answers = undefined;
                Promise.all(['evil\(tag)=1; domain=127.0.0.2; path=/', 'evilSuffix\(tag)=1; domain=com; path=/',
                             'fineFirst\(tag)=1; domain=127.0.0.1; path=/'].map((cookie) =>
                  hybrid.call('hybrid.cookies', 'write', { url: location.href, cookie }).then(
                    (answer) => (answer.accepted ? 'accepted' : 'refused: ' + answer.reason), (e) => e.code)))
                  .then((all) => { window.__answers = all; });
                true
                """)
            try await app.waitFor("window.__answers !== undefined")
            let answers = try JSONDecoder().decode(
                [String].self, from: Data((try await app.js("window.__answers") ?? "[]").utf8))
            #expect(answers.count == 3)
            #expect(
                answers.first == "refused: Domain=127.0.0.2 does not domain-match the request host '127.0.0.1'.",
                "\(answers)")
            #expect(
                answers.dropFirst().first?.hasPrefix("refused: Domain=com is a public suffix") == true, "\(answers)")
            #expect(answers.last == "accepted", "\(answers)")

            // And the way a page writes them.
            try await app.js("document.cookie = 'evil\(tag)=2; domain=127.0.0.2; path=/'")
            try await app.js("document.cookie = 'evilSuffix\(tag)=2; domain=com; path=/'")
            // A legitimate write after them: once it arrived, the refused ones would have too.
            try await app.js("document.cookie = 'fine\(tag)=1; path=/'")
            try await waitUntil(timeout: .seconds(10)) { jar.allCookies().contains { $0.name == "fine\(tag)" } }
            await app.sync.settle()
            let names = Set(jar.allCookies().map(\.name))
            #expect(names.contains("fineFirst\(tag)"))
            #expect(!names.contains("evil\(tag)"))
            #expect(!names.contains("evilSuffix\(tag)"))
            try await app.waitFor("document.cookie.includes('fine\(tag)=1')")
            #expect(!(try await app.documentCookie).contains("evil"))
            let atB = try #require(URL(string: sites.b.origin + "/echo"))
            #expect(!(try await app.nativeGET(atB)).contains("evil"))
            let engineNames = try await app.view.cookieStore.cookies(for: nil).map(\.name)
            #expect(!engineNames.contains { $0.hasPrefix("evil") })
        }
    }
}
#endif
