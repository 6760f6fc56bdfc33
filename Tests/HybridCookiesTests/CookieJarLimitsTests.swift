import Foundation
import Testing

@testable import HybridCookies

@Suite("Jar: limits and eviction")
struct CookieJarLimitsTests {
    @Test func perDomainLimitEvictsLeastRecentlyUsed() {
        let (jar, clock) = makeCookieJar { $0.maxCookiesPerDomain = 3 }
        jar.set("a=1", "https://example.com/")
        clock.advance(10)
        jar.set("b=1", "https://www.example.com/")
        clock.advance(10)
        jar.set("c=1; Path=/c", "https://example.com/")
        clock.advance(10)
        _ = jar.header("https://example.com/")  // touches a (not c: path /c)
        clock.advance(10)
        jar.set("d=1", "https://example.com/")
        #expect(Set(jar.allCookies().map(\.name)) == ["a", "c", "d"])  // b was least recently used
        jar.set("x=1", "https://other.com/")  // other sites are not affected
        #expect(jar.count == 4)
    }

    @Test func expiredAreEvictedFirst() {
        let (jar, clock) = makeCookieJar { $0.maxCookiesPerDomain = 2 }
        jar.set("old=1", "https://example.com/")
        jar.set("short=1; Max-Age=5", "https://example.com/")
        clock.advance(10)
        jar.set("new=1", "https://example.com/")
        #expect(Set(jar.allCookies().map(\.name)) == ["old", "new"])
    }

    @Test func totalLimit() {
        let (jar, clock) = makeCookieJar { $0.maxCookies = 5 }
        for index in 0..<8 {
            jar.set("c\(index)=1", "https://site\(index).com/")
            clock.advance(1)
        }
        #expect(jar.count == 5)
        #expect(Set(jar.allCookies().map(\.name)) == ["c3", "c4", "c5", "c6", "c7"])
    }

    @Test func evictionIsReported() {
        let (jar, _) = makeCookieJar { $0.maxCookies = 1 }
        let events = CookieEventLog()
        let token = jar.addObserver { events.append($0) }
        jar.set("a=1", "https://a.com/")
        jar.set("b=1", "https://b.com/")
        #expect(events.all.map(\.cause) == [.explicit, .explicit, .evicted])
        #expect(events.all.last?.cookie.name == "a")
        token.cancel()
    }
}
