#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridCookies
import HybridKit
import HybridKitGTK
import HybridNetwork
import Testing

/// The HTTP cache in real WebKitGTK: a package page's network images and API GET, fresh for a minute, are fetched
/// once for every container that shares the cache.
@Suite(.serialized) struct HTTPCacheGTKTests {
    @Test @GTKActor func aSecondOpenMakesNoRequestForWhatIsFresh() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let cache = HTTPResponseCache(directory: fixture.work.appending(path: "http-cache"))
        func open() async throws -> PrefetchFixture.PageResult {
            var configuration = ContainerConfiguration(
                site: fixture.site, documentCookies: .automatic(jar: fixture.jar), pageMessages: .site)
            configuration.httpCache = cache
            let container = try HybridContainer(configuration: configuration, factory: GTKEngineFactory())
            defer { container.close() }
            return try await fixture.open("cached", in: container, path: "cached.html")
        }
        let first = try await open()
        #expect(first.body == #"loaded loaded {"fresh":true}"#)
        #expect(fixture.requests("GET /").count == 3, "\(fixture.requests(""))")
        let second = try await open()
        #expect(second.body == first.body)
        #expect(fixture.requests("GET /").count == 3, "\(fixture.requests(""))")
        #expect(cache.diskBytes >= 0)
    }

    /// The host signs the user out (or in as another): nothing fetched with the old cookies is answered from the
    /// cache, fresh as it is.
    @Test @GTKActor func anotherUsersCookiesAreNeverAnsweredFromTheCache() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let cache = HTTPResponseCache(directory: fixture.work.appending(path: "http-cache"))
        func open() async throws {
            var configuration = ContainerConfiguration(
                site: fixture.site, documentCookies: .automatic(jar: fixture.jar), pageMessages: .site)
            configuration.httpCache = cache
            let container = try HybridContainer(configuration: configuration, factory: GTKEngineFactory())
            defer { container.close() }
            let result = try await fixture.open("cached", in: container, path: "cached.html")
            #expect(result.body == #"loaded loaded {"fresh":true}"#)
        }
        try await open()
        #expect(fixture.requests("GET /").count == 3, "\(fixture.requests(""))")
        fixture.jar.setCookie("sid=s2; Path=/", for: .http(try #require(URL(string: "https://shop.example/"))))
        try await open()
        #expect(fixture.requests("GET /").count == 6, "\(fixture.requests(""))")
        // The new user's answers are cached for the new user.
        try await open()
        #expect(fixture.requests("GET /").count == 6, "\(fixture.requests(""))")
    }

    /// The full-proxy strategy's GETs share the cache through `CachingProxy` over the real `NativeProxy`: the page's
    /// `fetch` of a fresh API answer reaches the server once over two opens; with the bare proxy, twice.
    @Test(arguments: [false, true]) @GTKActor
    func proxiedGetsShareTheCacheThroughCachingProxy(caching: Bool) async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let cache = HTTPResponseCache(directory: fixture.work.appending(path: "http-cache"))
        let mapping = OfflineURLMapping(route: fixture.site.route)
        let development = try #require(fixture.site.developmentOrigin)
        let proxy = NativeProxy(
            policy: ProxyPolicy(allowedHosts: ["127.0.0.1"], allowedAddressKinds: [.loopback]),
            cookies: JarCookieHandler(jar: fixture.jar, pageURL: { mapping.packageURL(for: $0) }))
        let hooks = RequestInterceptionFeature(
            scheme: fixture.site.route.scheme, config: InterceptionConfig(defaultStrategy: .fullProxy),
            proxy: caching ? CachingProxy(proxy, cache: cache) : proxy,
            mapURL: { mapping.packageURL(for: $0).map(development.outbound) })
        for _ in 0..<2 {
            var configuration = ContainerConfiguration(
                site: fixture.site, features: [hooks], documentCookies: .automatic(jar: fixture.jar),
                pageMessages: .site)
            configuration.httpCache = cache
            let container = try HybridContainer(configuration: configuration, factory: GTKEngineFactory())
            defer { container.close() }
            let result = try await fixture.open("cached", in: container, path: "cached.html")
            #expect(result.body == #"loaded loaded {"fresh":true}"#)
        }
        #expect(fixture.requests("GET /api/fresh").count == (caching ? 1 : 2), "\(fixture.requests(""))")
        // The images are package misses, cached by the package network either way.
        #expect(fixture.requests("GET /img/").count == 2, "\(fixture.requests(""))")
    }

    @Test @GTKActor func withoutACacheEveryOpenGoesToTheServer() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        for _ in 0..<2 {
            let container = try HybridContainer(
                configuration: ContainerConfiguration(
                    site: fixture.site, documentCookies: .automatic(jar: fixture.jar), pageMessages: .site),
                factory: GTKEngineFactory())
            defer { container.close() }
            _ = try await fixture.open("cached", in: container, path: "cached.html")
        }
        #expect(fixture.requests("GET /").count == 6, "\(fixture.requests(""))")
    }
}
#endif
