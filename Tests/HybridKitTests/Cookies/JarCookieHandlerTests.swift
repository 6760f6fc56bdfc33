import Foundation
import HybridKit
import HybridCookies
import Testing

@Suite struct JarCookieHandlerTests {
    @Test func answersAndStoresThroughTheJar() throws {
        let jar = CookieJar()
        let handler = JarCookieHandler(jar: jar)
        let login = try #require(URL(string: "https://a.example.com/login"))
        // One value with a comma inside Expires stays one cookie.
        handler.storeSetCookies(
            ["sid=1; HttpOnly; Path=/; Expires=Wed, 09 Jun 2100 10:18:14 GMT", "pref=x; Path=/"], from: login,
            firstParty: nil)
        let page = try #require(URL(string: "https://a.example.com/app"))
        #expect(
            handler.cookieHeader(for: page, firstParty: nil, method: "GET", includeHTTPOnly: true) == "sid=1; pref=x")
        #expect(handler.cookieHeader(for: page, firstParty: nil, method: "GET", includeHTTPOnly: false) == "pref=x")
    }

    @Test func aCustomSchemeFirstPartyIsJudgedAsTheSiteItStandsFor() throws {
        let jar = CookieJar()
        let handler = JarCookieHandler(jar: jar) { url in
            URL(string: "https" + url.absoluteString.drop { $0 != ":" })
        }
        let api = try #require(URL(string: "https://a.example.com/api"))
        handler.storeSetCookies(["lax=1"], from: api, firstParty: nil)
        let samePage = try #require(URL(string: "hybrid://a.example.com/index.html"))
        let otherPage = try #require(URL(string: "hybrid://b.example.org/index.html"))
        // Lax (the default) is sent to a same-site request, not to a cross-site fetch.
        #expect(handler.cookieHeader(for: api, firstParty: samePage, method: "POST", includeHTTPOnly: true) == "lax=1")
        #expect(handler.cookieHeader(for: api, firstParty: otherPage, method: "GET", includeHTTPOnly: true) == nil)
    }
}
