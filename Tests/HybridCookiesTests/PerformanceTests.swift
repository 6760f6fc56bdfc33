import Foundation
import Testing

@testable import HybridCookies

/// A jar at benchmark scale answers every lookup correctly. Its speed is `hybrid bench cookies`'s business:
/// timed assertions in tests only measure how busy the machine is.
@Suite("Jar at scale")
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
        for (domain, request) in requests.enumerated() {
            let header = jar.cookieHeader(for: request) ?? ""
            #expect(header.split(separator: ";").count == 10, "example\(domain).com: \(header)")
        }
    }
}
