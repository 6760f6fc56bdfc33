#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridCookies

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `hybrid bench cookies`: the Cookie header for a URL from the jar vs from Foundation's `HTTPCookieStorage`
/// holding the same cookies, measured in the same run, interleaved in slices so both see the same machine.
///
/// 10,000 cookies over 1,000 registrable domains (`siteN.com`): per site, host-only and `Domain=` cookies on
/// three paths. Each lookup asks for one site's `https://www.siteN.com/a/b/page` and builds the header value
/// (the jar's `cookieHeader`, Foundation's `cookies(for:)` + `requestHeaderFields(with:)`).
public enum CookiesBenchmark {
    public struct Options: Sendable {
        public var domains = 1000
        public var cookiesPerDomain = 10
        /// Measuring time per side.
        public var seconds = 2.0
        public init() {}
    }

    public enum BenchError: Error, CustomStringConvertible {
        case mismatch(String)
        public var description: String {
            switch self {
            case .mismatch(let why): "the jar and HTTPCookieStorage disagree: \(why)"
            }
        }
    }

    static let scenario = "cookies"

    public static func run(_ options: Options = Options()) throws -> [BenchFigure] {
        var configuration = CookieJarConfiguration()
        // The defaults (3,000 in total, 180 per site) would evict most of the set: both sides hold all of it.
        configuration.maxCookies = options.domains * options.cookiesPerDomain
        configuration.maxCookiesPerDomain = options.cookiesPerDomain
        let jar = CookieJar(configuration: configuration)
        let storage = HTTPCookieStorage.sharedCookieStorage(
            forGroupContainerIdentifier: "hybridkit-bench-\(UUID().uuidString)")
        storage.cookieAcceptPolicy = .always
        let paths = ["/", "/a", "/a/b"]
        var urls: [URL] = []
        for site in 0..<options.domains {
            let host = "www.site\(site).com"
            guard let origin = URL(string: "https://\(host)/"), let page = URL(string: "https://\(host)/a/b/page")
            else { continue }
            urls.append(page)
            for index in 0..<options.cookiesPerDomain {
                // Session cookies: Foundation writes persistent ones to disk on every change, which is not what
                // is measured here.
                let domain = index % 2 == 0 ? "" : "; Domain=site\(site).com"
                let header = "c\(index)=v\(site)_\(index); Path=\(paths[index % paths.count])\(domain)"
                guard case .stored(let cookie) = jar.setCookie(header, for: .http(origin)),
                    let httpCookie = cookie.httpCookie
                else { throw BenchError.mismatch("the jar refused \(header)") }
                storage.setCookie(httpCookie)
            }
        }
        let stored = storage.cookies?.count ?? 0
        guard jar.count == stored, stored == options.domains * options.cookiesPerDomain else {
            throw BenchError.mismatch("jar holds \(jar.count) cookies, HTTPCookieStorage \(stored)")
        }
        // Same answer on both sides, or the comparison means nothing.
        for url in urls.prefix(20) {
            let fromJar = Set(jar.cookies(for: .http(url)).map(\.name))
            let fromStorage = Set((storage.cookies(for: url) ?? []).map(\.name))
            guard fromJar == fromStorage, !fromJar.isEmpty else {
                throw BenchError.mismatch("\(url): jar \(fromJar.sorted()), HTTPCookieStorage \(fromStorage.sorted())")
            }
        }

        func perSecond(seconds: Double, _ lookup: (URL) -> Bool) -> (count: Int, elapsed: Double) {
            let clock = ContinuousClock()
            let start = clock.now
            var count = 0
            var elapsed = 0.0
            var index = 0
            repeat {
                for _ in 0..<100 {
                    if lookup(urls[index]) { count += 1 }
                    index = (index + 1) % urls.count
                }
                let duration = clock.now - start
                elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            } while elapsed < seconds
            return (count, elapsed)
        }
        let blocks = 4
        var jarTotal = (count: 0, elapsed: 0.0)
        var foundationTotal = (count: 0, elapsed: 0.0)
        for _ in 0..<blocks {
            let slice = options.seconds / Double(blocks)
            let fromJar = perSecond(seconds: slice) { url in jar.cookieHeader(for: .http(url)) != nil }
            let fromFoundation = perSecond(seconds: slice) { url in
                HTTPCookie.requestHeaderFields(with: storage.cookies(for: url) ?? [])["Cookie"] != nil
            }
            jarTotal = (jarTotal.count + fromJar.count, jarTotal.elapsed + fromJar.elapsed)
            foundationTotal = (
                foundationTotal.count + fromFoundation.count, foundationTotal.elapsed + fromFoundation.elapsed
            )
        }
        return [
            BenchFigure(
                scenario: scenario,
                figure:
                    "Cookie header for a URL (CookieJar, \(stored) cookies over \(options.domains) domains)",
                value: Double(jarTotal.count) / jarTotal.elapsed, unit: "lookups/s",
                baselineName: "HTTPCookieStorage, same cookies",
                baseline: Double(foundationTotal.count) / foundationTotal.elapsed, better: .higher, targetRatio: 10)
        ]
    }
}
#endif
