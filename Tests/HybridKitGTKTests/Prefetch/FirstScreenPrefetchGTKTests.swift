#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Testing

/// First-screen prefetch in real WebKitGTK: a package page's own request answered from what native code fetched
/// while the view started, exactly as the network would have answered it, and only that request.
@Suite(.serialized) struct FirstScreenPrefetchGTKTests {
    @Test @GTKActor func thePageGetsItsDataFromThePrefetchExactlyAsWithout() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        // Without prefetch: what the network gives the page.
        let plain = try fixture.container(nil)
        let without = try await fixture.open("plain", in: plain)
        plain.close()
        #expect(fixture.requests("GET /api/feed").count == 1)
        // The same jar as before the first open.
        fixture.jar.setCookie(
            "seen=; Path=/; Max-Age=0", for: .http(try #require(URL(string: "https://shop.example/"))))

        let prefetcher = try fixture.prefetcher()
        let container = try fixture.container(prefetcher)
        defer { container.close() }
        let with = try await fixture.open("plain", in: container)
        // The server saw one request for this open: the prefetch, with the jar's cookies and the declared header.
        #expect(fixture.requests("GET /api/feed").count == 2, "\(fixture.requests(""))")
        #expect(with.status == 200)
        #expect(with.body == without.body, "\(with.body)")
        #expect(with.body.contains("sid=s1"))
        #expect(with.feedHeader == without.feedHeader)
        #expect(with.feedHeader == "client=shop fr")
        #expect(with.contentType == without.contentType)
        // The response's cookie is in document.cookie when the page sees the response, as without.
        #expect(with.cookie.contains("seen=u1"), "\(with.cookie)")
        #expect(without.cookie.contains("seen=u1"), "\(without.cookie)")
        #expect(
            with.prefetched
                == [
                    .init(
                        method: "GET", url: "https://shop.example/api/feed?user=u1", credentials: "same-origin",
                        state: "used")
                ])
        #expect(without.prefetched == nil)
        // The host's timing marks.
        let opened = try #require(URL(string: "https://shop.example/?mode=plain"))
        let marks = try #require(prefetcher.marks(for: opened))
        #expect(marks.prefetchDone.map { $0 >= marks.open } == true)
        #expect(marks.viewReady.map { $0 >= marks.open } == true)
        let firstScreen = try #require(marks.firstScreen)
        #expect(firstScreen >= (marks.viewReady ?? firstScreen))
    }

    @Test @GTKActor func anXHRIsAnsweredToo() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let container = try fixture.container(try fixture.prefetcher())
        defer { container.close() }
        let result = try await fixture.open("xhr", in: container)
        #expect(result.body.contains("for u1"))
        #expect(result.feedHeader == "client=shop fr")
        #expect(fixture.requests("GET /api/feed").count == 1, "\(fixture.requests(""))")
    }

    @Test @GTKActor func theResponseSCookiesReachTheJarOnlyWhenThePageGetsIt() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let prefetcher = try fixture.prefetcher()
        let page = try #require(URL(string: "https://shop.example/?mode=plain"))
        #expect(prefetcher.prefetch(for: page) == 1)
        try await waitUntil(timeout: .seconds(10)) { prefetcher.marks(for: page)?.prefetchDone != nil }
        // Arrived, not handed over: the jar does not have its cookie yet.
        #expect(!fixture.jar.allCookies().contains { $0.name == "seen" })
        let container = try fixture.container(prefetcher)
        defer { container.close() }
        let result = try await fixture.open("plain", in: container)
        #expect(result.body.contains("for u1"))
        #expect(result.cookie.contains("seen=u1"))
        #expect(fixture.jar.allCookies().contains { $0.name == "seen" })
        // The tap's prefetch answered: the load started none of its own.
        #expect(fixture.requests("GET /api/feed").count == 1, "\(fixture.requests(""))")
    }

    @Test(arguments: ["query", "post", "include", "header"])
    @GTKActor func aMismatchGoesToTheServer(_ mode: String) async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let container = try fixture.container(try fixture.prefetcher())
        defer { container.close() }
        let result = try await fixture.open(mode, in: container)
        #expect(result.status == 200)
        // The prefetch and the page's own request both reached the server, and the page got the server's answer.
        #expect(fixture.requests("").count == 2, "\(fixture.requests(""))")
        #expect(result.feedHeader == (mode == "header" ? "client=shop en" : "client=shop fr"))
        #expect(result.body.contains(mode == "query" ? "for u2" : "for u1"))
        #expect(result.prefetched?.first?.state == "waiting", "\(String(describing: result.prefetched))")
    }

    @Test @GTKActor func aFrameSRequestIsNeverAnswered() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let container = try fixture.container(try fixture.prefetcher())
        defer { container.close() }
        let result = try await fixture.open("frame", in: container)
        #expect(result.body.contains("for u1"))
        #expect(fixture.requests("GET /api/feed").count == 2, "\(fixture.requests(""))")
    }

    /// The page asks for a prefetch still on its way, then leaves for another document: its request is cancelled
    /// with it, and the answer's cookies never reach the jar, as with the engine's own fetch.
    @Test @GTKActor func aPageThatLeftBeforeItsAnswerCameGetsNoneOfItsCookies() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let container = try fixture.container(try fixture.prefetcher())
        defer { container.close() }
        try container.load(try #require(URL(string: "https://shop.example/late.html?mode=leave")))
        try await waitUntil(timeout: .seconds(10)) { container.engine.url?.path == "/cached.html" }
        try await waitUntil(timeout: .seconds(10)) { !fixture.requests("GET /api/late").isEmpty }
        // The prefetch's answer came 1 s after it was sent.
        try await Task.sleep(for: .seconds(2))
        #expect(!fixture.jar.allCookies().contains { $0.name == "late" })
        // Only the prefetch reached the server: the page's request took it, and leaving started no other.
        #expect(fixture.requests("GET /api/late").count == 1, "\(fixture.requests(""))")
    }

    @Test @GTKActor func aFailedPrefetchChangesNothingForThePage() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let container = try fixture.container(try fixture.prefetcher(network: { _ in FailingNetwork() }))
        defer { container.close() }
        let result = try await fixture.open("plain", in: container)
        #expect(result.status == 200)
        #expect(result.body.contains("for u1"))
        #expect(result.cookie.contains("seen=u1"))
        #expect(fixture.requests("GET /api/feed").count == 1, "\(fixture.requests(""))")
    }

    @Test @GTKActor func aSlowPrefetchCostsThePageAtMostTheClaimWait() async throws {
        let fixture = try await PrefetchFixture()
        defer { fixture.close() }
        let container = try fixture.container(
            try fixture.prefetcher(policy: PrefetchPolicy(claimWait: .milliseconds(300))))
        defer { container.close() }
        let start = ContinuousClock.now
        let result = try await fixture.open("slow", in: container, path: "slow.html")
        #expect(result.body == "slow answer")
        // The prefetch still hangs (8 s); the page went to the network itself after the claim wait.
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(fixture.requests("GET /api/slow").count == 2)
    }
}
#endif
