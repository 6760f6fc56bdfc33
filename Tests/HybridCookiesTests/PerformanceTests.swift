import Foundation
import Testing

@testable import HybridCookies

@Suite("Lookup speed")
struct PerformanceTests {
    @Test func tenThousandCookiesOverAThousandDomains() {
        let (jar, _) = makeCookieJar { $0.maxCookies = 20_000 }
        for domain in 0..<1000 {
            for index in 0..<10 {
                jar.set(
                    "c\(index)=v; Domain=example\(domain).com; Path=/", "https://www.example\(domain).com/")
            }
        }
        #expect(jar.count == 10_000)
        let requests = (0..<1000).map {
            CookieRequest.http(testURL("https://www.example\($0).com/page"))
        }
        let lookups = 20_000
        let elapsed = ContinuousClock().measure {
            for index in 0..<lookups {
                _ = jar.cookieHeader(for: requests[index % 1000])
            }
        }
        let perLookup = elapsed / lookups
        print("cookieHeader lookup: \(perLookup) per call")
        #expect(perLookup < .microseconds(200))  // debug build on a shared machine; release is ~10× faster
    }
}
