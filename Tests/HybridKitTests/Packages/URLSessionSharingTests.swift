import Foundation
import HybridCookies
@testable import HybridKit
import HybridKitTesting
import HybridTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Native fetches reuse their connections, as the engine's own requests do: fetchers sharing one URLSession (each
/// with its own cookies), a prefetcher's prefetches, a network-page prefetcher's documents and a site's pages.
/// Against a loopback server that counts the connections it accepted.
@Suite(.serialized) struct URLSessionSharingTests {
    @Test func fetchersSharingASessionReuseItsConnectionAndKeepTheirOwnCookies() async throws {
        let server = try KeepAliveHTTPServer(setCookie: "seen=1; Path=/")
        defer { server.stop() }
        let url = try #require(URL(string: server.origin + "/api"))
        let (a, b) = (CookieJar(), CookieJar())
        a.setCookie("who=a; Path=/", for: .http(url))
        b.setCookie("who=b; Path=/", for: .http(url))
        let shared = URLSessionNetworkFetcher(timeout: 10)
        let first = shared.sharingSession(cookies: JarCookieHandler(jar: a))
        let second = shared.sharingSession(cookies: JarCookieHandler(jar: b))
        for fetcher in [first, second, first] {
            #expect(try await Self.get(url, with: fetcher).last == .finished)
        }
        #expect(server.connections == 1)
        let cookies = server.requests.map(Self.cookieHeader)
        #expect(cookies == ["who=a", "who=b", "who=a; seen=1"])
        #expect(b.cookieHeader(for: .http(url)) == "who=b; seen=1")

        // Each fetcher of its own: a connection each.
        for _ in 0..<2 { _ = try await Self.get(url, with: URLSessionNetworkFetcher(timeout: 10)) }
        #expect(server.connections == 3)
    }

    @Test func shuttingDownOneFetcherEndsItsFetchesOnly() async throws {
        let server = try KeepAliveHTTPServer(body: "late", delay: .seconds(1))
        defer { server.stop() }
        let url = try #require(URL(string: server.origin + "/slow"))
        let shared = URLSessionNetworkFetcher(timeout: 10)
        let (closing, going) = (shared.sharingSession(cookies: nil), shared.sharingSession(cookies: nil))
        let started = ContinuousClock.now
        async let cut = Self.get(url, with: closing)
        async let kept = Self.get(url, with: going)
        #expect(await eventually { server.requests.count == 2 })
        closing.shutDown()
        let cutEvents = try await cut
        #expect(ContinuousClock.now - started < .seconds(1), "the shut fetcher's fetch waited for the server")
        guard case .failed = cutEvents.last else {
            Issue.record("the shut fetcher's fetch ended \(String(describing: cutEvents.last))")
            return
        }
        let keptEvents = try await kept
        #expect(keptEvents.last == .finished)
        #expect(keptEvents.contains(.data(Data("late".utf8))))
        // Shut for good; the other goes on.
        guard case .failed(let why) = try await Self.get(url, with: closing).last else {
            Issue.record("a fetch after shutDown() was made")
            return
        }
        #expect(why.contains("shut down"))
        #expect(try await Self.get(url, with: going).last == .finished)
    }

    /// A page that closes while its fetch follows a redirect: the next hop is cancelled too, and the chain ends.
    @Test func shuttingDownDuringARedirectedFetchEndsIt() async throws {
        let server = try KeepAliveHTTPServer(body: "late", delay: .seconds(2), redirects: ["/moved": "/slow"])
        defer { server.stop() }
        let url = try #require(URL(string: server.origin + "/moved"))
        let fetcher = URLSessionNetworkFetcher(timeout: 10).sharingSession(cookies: nil)
        let started = ContinuousClock.now
        async let events = Self.get(url, with: fetcher)
        #expect(await eventually { server.requests.contains { $0.hasPrefix("GET /slow ") } })
        fetcher.shutDown()
        let ended = try await events
        #expect(ContinuousClock.now - started < .seconds(2), "the redirected hop was not cancelled")
        guard case .failed = ended.last else {
            Issue.record("the redirected fetch ended \(String(describing: ended.last))")
            return
        }
    }

    @Test func aPrefetchersPrefetchesShareOneConnection() async throws {
        let server = try KeepAliveHTTPServer(body: "{}")
        defer { server.stop() }
        let prefetcher = try FirstScreenPrefetcher(
            networkOrigin: server.origin,
            declarations: PrefetchDeclarations(pages: [
                PagePrefetch(page: "/page", requests: [PrefetchRequest(url: "/api?r={query.r}")])
            ]),
            policy: PrefetchPolicy(allowsPrivateAddresses: true), jar: CookieJar())
        for round in 1...3 {
            let page = try #require(URL(string: server.origin + "/page?r=\(round)"))
            #expect(prefetcher.prefetch(for: page) == 1)
            #expect(await eventually { prefetcher.marks(for: page)?.prefetchDone != nil })
        }
        #expect(server.requests.count == 3)
        #expect(server.connections == 1)
    }

    @Test func aNetworkPagePrefetchersDocumentsShareOneConnection() async throws {
        let server = try KeepAliveHTTPServer(body: "<p>page</p>", contentType: "text/html")
        defer { server.stop() }
        let pages = try NetworkPagePrefetcher(
            origins: [server.origin], policy: NetworkPagePolicy(allowsPrivateAddresses: true), jar: CookieJar())
        for round in 1...3 {
            let url = try #require(URL(string: server.origin + "/page?r=\(round)"))
            let fetch = try #require(pages.fetch(for: EngineRequest(url: url), userAgent: nil))
            let outcome = await fetch.outcome(by: .now + .seconds(5), wait: .seconds(5))
            guard case .document(let document) = outcome else {
                Issue.record("no document for round \(round): \(outcome)")
                return
            }
            #expect(document.body == Data("<p>page</p>".utf8))
        }
        #expect(server.connections == 1)
    }

    /// A site's containers fetch what the package lacks on the site's session; closing one page ends its own
    /// fetches, not the next page's.
    @EngineActor @Test func aSitesPagesShareOneConnection() async throws {
        let server = try KeepAliveHTTPServer(body: "{\"ok\":true}")
        defer { server.stop() }
        let site = try HybridSite(
            "https://shop.example/", package: .store(try SiteTests.empty.get()),
            developmentServer: try #require(URL(string: server.origin)))
        for round in 1...3 {
            let (container, engine) = try SiteTests().make(ContainerConfiguration(site: site))
            let handler = try #require(engine.schemeHandlers["hybrid"])
            let task = RecordingTask(
                EngineRequest(url: try #require(URL(string: "hybrid://shop.example/api/cart?r=\(round)"))))
            handler.start(task)
            try await task.ended(timeout: .seconds(5))
            #expect(task.finished)
            #expect(task.body == Data("{\"ok\":true}".utf8))
            container.close()
        }
        #expect(server.requests.count == 3)
        #expect(server.connections == 1)
    }

    /// A host's own `PackageServing`, listed in one configuration for several containers, gives their pages one
    /// session too; a copy sent to another development server gets a session of its own, never the old server.
    @EngineActor @Test func aPackageServingsPagesShareOneConnection() async throws {
        let (first, second) = (try KeepAliveHTTPServer(body: "first"), try KeepAliveHTTPServer(body: "second"))
        defer {
            first.stop()
            second.stop()
        }
        let site = try #require(URL(string: "https://shop.example/"))
        let route = try OfflineRoute(scheme: "hybrid", prefixes: ["https://shop.example/"])
        var serving = PackageServing(
            store: try SiteTests.empty.get(), route: route,
            developmentOrigin: try DevelopmentOrigin(sending: site, to: try #require(URL(string: first.origin))))
        func fetch(_ serving: PackageServing) async throws -> Data {
            let (container, engine) = try SiteTests().make(ContainerConfiguration(features: [serving]))
            defer { container.close() }
            let task = RecordingTask(EngineRequest(url: try #require(URL(string: "hybrid://shop.example/api"))))
            try #require(engine.schemeHandlers["hybrid"]).start(task)
            try await task.ended(timeout: .seconds(5))
            return task.body
        }
        for _ in 1...3 { #expect(try await fetch(serving) == Data("first".utf8)) }
        #expect(first.requests.count == 3)
        #expect(first.connections == 1)
        serving.developmentOrigin = try DevelopmentOrigin(sending: site, to: try #require(URL(string: second.origin)))
        for _ in 1...2 { #expect(try await fetch(serving) == Data("second".utf8)) }
        #expect(second.connections == 1)
        #expect(first.requests.count == 3)
    }

    /// Every event of one fetch, until it ends.
    static func get(_ url: URL, with fetcher: URLSessionNetworkFetcher) async throws -> [NetworkFetchEvent] {
        let events = Mutex<[NetworkFetchEvent]>([])
        return await withCheckedContinuation { continuation in
            _ = fetcher.fetch(EngineRequest(url: url)) { event in
                let all = events.withLock { events in
                    events.append(event)
                    return events
                }
                switch event {
                case .finished, .failed: continuation.resume(returning: all)
                case .response, .data: break
                }
            }
        }
    }

    static func cookieHeader(_ head: String) -> String {
        head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("cookie:") }
            .map { String($0.dropFirst("cookie:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
    }
}
