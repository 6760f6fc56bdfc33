import Foundation
import Testing

@testable import HybridCookies

@Suite("Jar: expiry, deletion, replacement, ordering")
struct CookieJarLifecycleTests {
    @Test func maxAgeExpires() {
        let (jar, clock) = makeCookieJar()
        jar.set("a=1; Max-Age=60", "https://example.com/")
        #expect(jar.header("https://example.com/") == "a=1")
        clock.advance(61)
        #expect(jar.header("https://example.com/") == "")
        #expect(jar.count == 0)  // purged lazily by the lookup
    }

    @Test func maxAgeWinsOverExpires() {
        let (jar, clock) = makeCookieJar()
        jar.set("a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Max-Age=60", "https://example.com/")
        #expect(jar.header("https://example.com/") == "a=1")  // Expires is in the past, Max-Age is not
        clock.advance(30)
        jar.set("b=1; Max-Age=0; Expires=Fri, 01 Jan 2100 00:00:00 GMT", "https://example.com/")
        #expect(jar.header("https://example.com/") == "a=1")
    }

    @Test func expiresInFutureIsPersistent() {
        let (jar, clock) = makeCookieJar()
        jar.set("a=1; Expires=Fri, 01 Jan 2100 00:00:00 GMT", "https://example.com/")
        let cookie = jar.allCookies().first
        #expect(cookie?.isPersistent == true)
        #expect(cookie?.expiresDate == clock.now.addingTimeInterval(400 * 86_400))
    }

    @Test func deletionByMaxAgeZero() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1; Path=/", "https://example.com/")
        let result = jar.set("a=; Max-Age=0; Path=/", "https://example.com/")
        guard case .deleted(let removed) = result else {
            Issue.record("expected deletion, got \(result)")
            return
        }
        #expect(removed?.value == "1")
        #expect(jar.count == 0)
    }

    @Test func deletionByPastExpires() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1", "https://example.com/")
        jar.set("a=gone; Expires=Thu, 01 Jan 1970 00:00:01 GMT", "https://example.com/")
        #expect(jar.header("https://example.com/") == "")
    }

    @Test func deletionMustMatchIdentity() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1; Path=/x", "https://example.com/")
        #expect(jar.set("a=; Max-Age=0", "https://example.com/") == .deleted(nil))  // path "/" differs
        #expect(jar.count == 1)
    }

    @Test func replaceKeepsCreationTime() {
        let (jar, clock) = makeCookieJar()
        jar.set("a=1", "https://example.com/")
        let created = jar.allCookies().first?.creationDate
        clock.advance(100)
        let result = jar.set("a=2", "https://example.com/")
        guard case .replaced(let cookie, let previous) = result else {
            Issue.record("expected replace, got \(result)")
            return
        }
        #expect(previous.value == "1")
        #expect(cookie.value == "2")
        #expect(cookie.creationDate == created)
        #expect(jar.count == 1)
    }

    @Test func headerOrderLongerPathThenCreation() {
        let (jar, clock) = makeCookieJar()
        jar.set("first=1; Path=/", "https://example.com/")
        clock.advance(1)
        jar.set("deep=1; Path=/a/b", "https://example.com/")
        jar.set("mid=1; Path=/a", "https://example.com/")
        jar.set("second=1; Path=/", "https://example.com/")  // same clock tick: still after "first"
        jar.set("third=1; Path=/", "https://example.com/")
        jar.set("first=updated; Path=/", "https://example.com/")  // keeps its place
        #expect(
            jar.header("https://example.com/a/b/c") == "deep=1; mid=1; first=updated; second=1; third=1")
    }

    @Test func namelessCookieInHeader() {
        let (jar, _) = makeCookieJar()
        jar.set("token", "https://example.com/")
        jar.set("a=1", "https://example.com/")
        #expect(jar.header("https://example.com/") == "token; a=1")
    }

    @Test func deletionAPI() {
        let (jar, _) = makeCookieJar()
        jar.set("a=1", "https://example.com/")
        jar.set("b=1; Domain=example.com", "https://www.example.com/")
        jar.set("c=1", "https://www.example.com/")
        jar.set("d=1", "https://other.com/")
        #expect(jar.deleteCookie(name: "a", domain: "example.com", path: "/").map(\.name) == ["a"])
        #expect(jar.deleteCookies(forDomain: "example.com").map(\.name).sorted() == ["b", "c"])
        #expect(jar.count == 1)
        jar.set("e=1", "https://www.other.com/")
        #expect(
            jar.deleteCookies(forDomain: "other.com", includingSubdomains: false).map(\.name) == ["d"])
        #expect(jar.deleteAll().map(\.name) == ["e"])
        #expect(jar.count == 0)
    }

    @Test func upsertStoresGivenCookie() {
        let (jar, clock) = makeCookieJar()
        let cookie = JarCookie(
            name: "x", value: "1", domain: "example.com", hostOnly: false, creationDate: clock.now)
        #expect(jar.upsert(cookie) == .stored(cookie))
        #expect(jar.header("https://a.example.com/") == "x=1")
    }
}
