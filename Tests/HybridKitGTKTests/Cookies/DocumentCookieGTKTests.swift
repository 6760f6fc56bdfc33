#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridCookies
import HybridKitGTK
import Testing

/// Cookies for pages served through the custom scheme (`hybrid://127.0.0.1:port/` standing for site A), in real
/// WebKitGTK: the document.cookie shim over the jar, and the package handler's network fetches through the jar.
extension CookieGTKTests {
    @Suite struct DocumentCookieGTKTests {
        /// What WebKitGTK itself does on a secure custom scheme, without the shim: it keeps no cookies there.
        @Test @GTKActor func webKitKeepsNoCookiesForACustomSchemePage() async throws {
            let root = try temporaryRoot("cookies-probe")
            defer { try? FileManager.default.removeItem(at: root) }
            let sites = try await CookieSites.start(root: root)
            defer { sites.stop() }
            let tag = cookieTag()
            let app = try await CookieHarness(jar: CookieJar(), sites: sites, root: root, documentCookieShim: false)
            defer { app.close() }
            try await app.load(try #require(URL(string: "hybrid://127.0.0.1:\(sites.a.port)/index.html")))
            let result = try await app.js(
                "(() => { try { document.cookie = 'probe\(tag)=1; path=/'; return String(document.cookie); } "
                    + "catch (e) { return 'threw ' + e.name; } })()")
            let engineNames = try await app.view.cookieStore.cookies(for: nil).map(\.name)
            // The write is dropped (no exception), the read is empty, and the engine's store did not take it.
            #expect(result == "\"\"")
            #expect(!engineNames.contains("probe\(tag)"))
        }

        @Test @GTKActor func documentCookieOnACustomSchemePageIsTheJars() async throws {
            let root = try temporaryRoot("cookies-shim")
            defer { try? FileManager.default.removeItem(at: root) }
            let sites = try await CookieSites.start(root: root)
            defer { sites.stop() }
            let tag = cookieTag()
            let jar = CookieJar()
            let app = try await CookieHarness(jar: jar, sites: sites, root: root)
            defer { app.close() }
            let siteA = try #require(URL(string: sites.a.origin + "/echo"))

            // Native login.
            _ = try await app.nativeGET(
                CookieSites.setURL(sites.a, "session\(tag)=secret; HttpOnly; Path=/", "visible\(tag)=1; Path=/"))
            try await app.load(try #require(URL(string: "hybrid://127.0.0.1:\(sites.a.port)/index.html")))
            try await app.js("window.hybridCookies.ready.then(() => { window.__cookiesReady = true; }); true")
            try await app.waitFor("window.__cookiesReady")

            // Direction 7: visible cookies show, the HttpOnly one does not; a fetch (served by the handler's network
            // fallback through the jar) carries both.
            let shown = try await app.documentCookie
            #expect(shown.contains("visible\(tag)=1"))
            #expect(!shown.contains("session\(tag)"))
            let echoed = try await app.fetchInPage("/echo")
            #expect(echoed.contains("session\(tag)=secret") && echoed.contains("visible\(tag)=1"))

            // Direction 5: a page write shows at once, reaches the jar, and rides native requests.
            let immediate = try await app.js(
                "document.cookie = 'fromPage\(tag)=2; path=/'; document.cookie.includes('fromPage\(tag)=2')")
            #expect(immediate == "true")
            try await waitUntil(timeout: .seconds(10)) { jar.allCookies().contains { $0.name == "fromPage\(tag)" } }
            #expect(try await app.nativeGET(siteA).contains("fromPage\(tag)=2"))

            // Direction 6: an ajax response's Set-Cookie goes to the jar (the handler fetched it) and, pushed by
            // native, into document.cookie; its HttpOnly sibling stays out of it.
            let ajax = CookieSites.setURL(sites.a, "ajax\(tag)=3; Path=/", "ajaxHidden\(tag)=4; HttpOnly; Path=/")
            let relative = ajax.path + "?" + (ajax.query ?? "")
            #expect(try await app.fetchInPage(relative) == "ok")
            #expect(jar.allCookies().first { $0.name == "ajaxHidden\(tag)" }?.httpOnly == true)
            try await app.waitFor("document.cookie.includes('ajax\(tag)=3')")
            #expect(!(try await app.documentCookie).contains("ajaxHidden\(tag)"))

            // A 302 chain across both hosts, followed by the handler's fetcher: each hop gets its host's cookies.
            jar.setCookie("b\(tag)=B; Path=/", for: .http(try #require(URL(string: sites.b.origin + "/"))))
            let middle = CookieSites.redirectURL(sites.b, to: siteA, "hopB\(tag)=1; Path=/")
            let start = CookieSites.redirectURL(sites.a, to: middle, "hopA\(tag)=1; Path=/")
            let final = try await app.fetchInPage(start.path + "?" + (start.query ?? ""))
            #expect(final.contains("hopA\(tag)=1") && final.contains("session\(tag)=secret"))
            #expect(!final.contains("b\(tag)") && !final.contains("hopB\(tag)"))
            let atB = sites.hits.cookie(host: "127.0.0.2", path: "/redirect") ?? "(no request)"
            #expect(atB.contains("b\(tag)=B") && !atB.contains("session\(tag)"), "at B: \(atB)")

            // Deletions: native deletes → the page stops seeing it; the page deletes → the jar drops it.
            jar.deleteCookie(name: "visible\(tag)", domain: "127.0.0.1", path: "/")
            try await app.waitFor("!document.cookie.includes('visible\(tag)')")
            try await app.js("document.cookie = 'fromPage\(tag)=; path=/; max-age=0'")
            #expect(!(try await app.documentCookie).contains("fromPage\(tag)"))
            try await waitUntil(timeout: .seconds(10)) { !jar.allCookies().contains { $0.name == "fromPage\(tag)" } }
        }

        @Test @GTKActor func aCustomSchemePageCannotSetHttpOnlyOrAnotherSitesCookies() async throws {
            let root = try temporaryRoot("cookies-shim-refusals")
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

            try await app.js("document.cookie = 'hidden\(tag)=1; HttpOnly; path=/'")
            try await app.js("document.cookie = 'otherSite\(tag)=1; domain=127.0.0.2; path=/'")
            try await app.js("document.cookie = 'suffix\(tag)=1; domain=com; path=/'")
            // Naming another origin's URL: the native side goes by the frame the engine reports, not the page's word.
            try await app.js(
                "hybrid.call('hybrid.cookies', 'write', {url: 'hybrid://127.0.0.2:\(sites.b.port)/', cookie: 'forged\(tag)=1'})"
                    + ".then(() => { window.__forged = 'accepted'; }, (e) => { window.__forged = e.code; }); true")
            try await app.waitFor("window.__forged !== undefined")
            #expect(try await app.js("window.__forged") == "\"denied\"")
            try await app.js("document.cookie = 'fine\(tag)=1; path=/'")
            try await waitUntil(timeout: .seconds(10)) { jar.allCookies().contains { $0.name == "fine\(tag)" } }

            let names = Set(jar.allCookies().map(\.name))
            for refused in ["hidden", "otherSite", "suffix", "forged"] {
                #expect(!names.contains(refused + tag), "\(refused) was stored")
            }
            let shown = try await app.documentCookie
            #expect(shown.contains("fine\(tag)=1"))
            #expect(
                !shown.contains("hidden\(tag)") && !shown.contains("otherSite\(tag)") && !shown.contains("suffix\(tag)")
            )
        }

        /// A new jar from the same file and a new view: cookies are still there, for both kinds of page.
        @Test @GTKActor func cookiesSurviveARestart() async throws {
            let root = try temporaryRoot("cookies-restart")
            defer { try? FileManager.default.removeItem(at: root) }
            let sites = try await CookieSites.start(root: root)
            defer { sites.stop() }
            let tag = cookieTag()
            let file = root.appendingPathComponent("cookies.json")

            let before = try CookieJar.open(store: FileCookieJarStore(fileURL: file))
            let first = try await CookieHarness(jar: before, sites: sites, root: root)
            _ = try await first.nativeGET(
                CookieSites.setURL(
                    sites.a, "kept\(tag)=1; Path=/; Max-Age=3600; HttpOnly", "keptVisible\(tag)=2; Path=/; Max-Age=3600"
                ))
            try before.flush()
            await first.sync.settle()
            first.close()
            // Every web view of this process shares one engine store; a restarted app's engine starts without these.
            let engine = first.view.cookieStore
            for cookie in try await engine.cookies(for: nil) where cookie.name.hasSuffix(tag) {
                try await engine.deleteCookie(cookie)
            }
            let left = try await engine.cookies(for: nil).filter { $0.name.hasSuffix(tag) }
            #expect(left.isEmpty, "the engine still holds \(left)")

            let after = try CookieJar.open(store: FileCookieJarStore(fileURL: file))
            let app = try await CookieHarness(jar: after, sites: sites, root: root)
            defer { app.close() }
            // A page the engine loads: its first request carries both.
            try await app.load(try #require(URL(string: sites.a.origin + "/page.html")))
            let request = sites.hits.cookie(host: "127.0.0.1", path: "/page.html") ?? ""
            #expect(request.contains("kept\(tag)=1") && request.contains("keptVisible\(tag)=2"))
            // A custom-scheme page: document.cookie shows the visible one, fetches carry both.
            try await app.load(try #require(URL(string: "hybrid://127.0.0.1:\(sites.a.port)/index.html")))
            try await app.waitFor("document.cookie.includes('keptVisible\(tag)=2')")
            #expect(!(try await app.documentCookie).contains("kept\(tag)="))
            let echoed = try await app.fetchInPage("/echo")
            #expect(echoed.contains("kept\(tag)=1") && echoed.contains("keptVisible\(tag)=2"))
        }
    }
}
#endif
