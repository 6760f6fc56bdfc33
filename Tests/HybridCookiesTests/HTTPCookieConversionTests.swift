import Foundation
import Testing

@testable import HybridCookies

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Foundation HTTPCookie conversion")
struct HTTPCookieConversionTests {
    @Test func domainCookieRoundtrip() throws {
        let created = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let cookie = JarCookie(
            name: "id", value: "42", domain: "example.com", path: "/app", hostOnly: false, secure: true,
            httpOnly: true, sameSite: .lax,
            expiresDate: Date(timeIntervalSinceReferenceDate: 800_000_000),
            creationDate: created)
        let http = try #require(cookie.httpCookie)
        #expect(http.domain == ".example.com")
        #expect(http.isSecure && http.isHTTPOnly)
        #expect(!http.isSessionOnly)
        let back = JarCookie(httpCookie: http, now: created)
        #expect(
            back.name == "id" && back.value == "42" && back.domain == "example.com" && back.path == "/app"
        )
        #expect(back.hostOnly == false && back.secure && back.httpOnly)
        #expect(back.expiresDate == cookie.expiresDate)
        #if canImport(Darwin)
        #expect(back.sameSite == .lax)
        #else
        // swift-corelibs-foundation drops the SameSite property: nothing to read back on Linux.
        #expect(back.sameSite == .unspecified)
        #endif
    }

    @Test func hostOnlySessionCookie() throws {
        let cookie = JarCookie(name: "s", value: "v", domain: "www.example.com")
        let http = try #require(cookie.httpCookie)
        #expect(http.domain == "www.example.com")
        #expect(http.isSessionOnly)
        let back = JarCookie(httpCookie: http)
        #expect(back.hostOnly)
        #expect(back.expiresDate == nil)
    }
}
