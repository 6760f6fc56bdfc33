#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestSupport
import Testing

/// Network pages' own `fetch` answered from a prefetch, against a page that does what a hostile or demanding page
/// does to its `fetch` (threat model lines 23–27 of the first-screen prefetch article): each case is checked
/// against the same page without prefetch, or against what the engine's own `fetch` does. Takes the engine's
/// shared cookie store alone, as the other network-page suites.
@Suite(.serialized, .engineCookieStoreExclusive) struct NetworkPrefetchHostileGTKTests {
    struct Got: Codable, Equatable {
        var status: Int?
        var body: String?
        var url: String?
        var error: String?
    }

    static func got(_ text: String) throws -> Got { try JSONDecoder().decode(Got.self, from: Data(text.utf8)) }

    /// Opens the hostile page in `mode` with and without prefetch; returns both reports.
    @GTKActor static func both(
        _ fixture: NetworkPrefetchFixture, _ path: String, policy: PrefetchPolicy? = nil
    ) async throws -> (with: String, without: String) {
        let prefetcher = try fixture.prefetcher(policy: policy ?? PrefetchPolicy(allowsPrivateAddresses: true))
        let with = try await fixture.open(path, with: prefetcher)
        let without = try await fixture.open(path, with: nil)
        return (with, without)
    }

    @Test @GTKActor func aRequestWithABodyStillReachesTheServerWhole() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let (with, without) = try await Self.both(fixture, "/hostile?user=u1&mode=post-request")
        #expect(try Self.got(with).status == 200, "\(with)")
        #expect(try Self.got(with) == (try Self.got(without)))
        #expect(fixture.requests("POST /api/feed") == ["POST /api/feed?user=u1", "POST /api/feed?user=u1"])
    }

    @Test @GTKActor func anAbortedRequestRejectsAndLeavesThePrefetchForTheNextOne() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let text = try await fixture.open("/hostile?user=u1&mode=aborted-before", with: try fixture.prefetcher())
        struct Report: Codable {
            var aborted: Got
            var then: Got
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(text.utf8))
        #expect(report.aborted.error == "AbortError", "\(text)")
        #expect(report.then.status == 200 && report.then.body?.contains("for u1") == true, "\(text)")
        // The aborted request took nothing: the next one was answered from the prefetch.
        #expect(fixture.requests("GET /api/feed") == ["GET /api/feed?user=u1"])
    }

    @Test @GTKActor func anAbortWhileWaitingRejectsAtOnce() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        // The prefetch hangs 8 s before its head; the page would wait up to the 6 s claim wait for it.
        let prefetcher = try fixture.prefetcher(
            policy: PrefetchPolicy(claimWait: .seconds(6), allowsPrivateAddresses: true))
        let text = try await fixture.open("/hostile-slow?mode=aborted-while-waiting", with: prefetcher)
        struct Report: Codable {
            var aborted: Got
            var ms: Int
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(text.utf8))
        #expect(report.aborted.error == "AbortError", "\(text)")
        #expect(report.ms < 1500, "the abort waited for the prefetch: \(text)")
    }

    @Test @GTKActor func aCloneReadsAsTheNetworkSResponse() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let (with, without) = try await Self.both(fixture, "/hostile?user=u1&mode=clone")
        #expect(with == without)
        #expect(with.contains(#""type":"basic""#) && with.contains("/api/feed?user=u1"), "\(with)")
        #expect(fixture.requests("GET /api/feed").count == 2)
    }

    @Test @GTKActor func aCookieThePageChangedBeforeAskingIsAMiss() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let (with, without) = try await Self.both(fixture, "/hostile?user=u1&mode=cookie")
        #expect(try Self.got(with).body?.contains("np_sid=s2") == true, "\(with)")
        #expect(try Self.got(with) == (try Self.got(without)))
        // The prefetch (with s1), the page's own request (with s2), then the page without prefetch.
        #expect(fixture.requests("GET /api/feed").count == 3)
    }

    @Test @GTKActor func aNegotiatingHeaderThePrefetchDidNotSendIsAMiss() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let (with, without) = try await Self.both(fixture, "/hostile-lang?mode=lang")
        #expect(try Self.got(with).body == "de", "\(with)")
        #expect(try Self.got(with) == (try Self.got(without)))
    }

    /// The answer varies on `Accept-Language`, which the engine adds to the page's request and the prefetch did not
    /// send: the prefetch's variant is not the page's, so the page reads what the engine's own request gets.
    @Test @GTKActor func aResponseThatVariesOnAHeaderTheEngineAddsIsNotTaken() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let (with, without) = try await Self.both(fixture, "/hostile-lang?mode=lang-implicit")
        #expect(try Self.got(with) == (try Self.got(without)), "\(with) \(without)")
        // The prefetch, the page's own request with prefetch, and the page's without.
        #expect(fixture.requests("GET /api/lang").count == 3)
    }

    @Test @GTKActor func aDrippingPrefetchCostsThePageAtMostTheClaimWait() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        // The prefetch's head comes at once, its body over 5 s; the page waits at most the 1 s claim wait.
        let prefetcher = try fixture.prefetcher(
            policy: PrefetchPolicy(claimWait: .seconds(1), allowsPrivateAddresses: true))
        let text = try await fixture.open("/hostile-drip?mode=drip", with: prefetcher)
        struct Report: Codable {
            var body: String?
            var ms: Int
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(text.utf8))
        #expect(report.body == "d0d1d2d3d4d5d6d7d8d9", "\(text)")
        #expect(report.ms < 3000, "the page waited for the whole dripping prefetch: \(text)")
        // The page never got the dripping response, so its cookie never reached the jar.
        #expect(fixture.requests("GET /api/drip").count >= 2)
        #expect(!fixture.jar.allCookies().contains { $0.name == "np_dripped" })
    }

    @Test @GTKActor func concurrentAsksGetOneAnswerAndTheRestGoToTheServer() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let text = try await fixture.open("/hostile?user=u1&mode=concurrent", with: try fixture.prefetcher())
        let url = try fixture.url("/api/feed?user=u1").absoluteString
        #expect(text == "[\"200 \(url)\",\"200 \(url)\",\"200 \(url)\",\"200 \(url)\"]", "\(text)")
        #expect(fixture.requests("GET /api/feed").count == 4)
    }

    @Test @GTKActor func anAskAfterTheTimeToLiveGoesToTheServer() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let (with, without) = try await Self.both(
            fixture, "/hostile?user=u1&mode=late",
            policy: PrefetchPolicy(timeToLive: .seconds(1), allowsPrivateAddresses: true))
        #expect(try Self.got(with).status == 200)
        #expect(try Self.got(with) == (try Self.got(without)))
        #expect(fixture.requests("GET /api/feed").count == 3)
    }

    @Test @GTKActor func aFloodOfRefusedMessagesIsCountedNotLoggedEachTime() async throws {
        let logs = LogCapture.installed()
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        logs.reset()
        let text = try await fixture.open("/hostile?user=u1&mode=flood", with: try fixture.prefetcher())
        #expect(text == "100", "\(text)")
        // One line for the view (other suites of the process may log theirs meanwhile), not one per message.
        let lines = logs.count("hybrid.prefetch", "prefetch handler refused a message; nothing answered")
        #expect(lines >= 1 && lines < 20, "\(lines)")
    }

    @Test @GTKActor func aPageItsServiceWorkerControlsGetsTheWorkerSAnswer() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let (with, without) = try await Self.both(fixture, "/hostile?user=u1&mode=service-worker")
        #expect(try Self.got(without).body == "from the worker", "\(without)")
        #expect(try Self.got(with) == (try Self.got(without)), "\(with)")
    }

    @Test @GTKActor func aPrefetchedRedirectReadsAsTheEngineSAndOtherRedirectModesGoToTheNetwork() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        for mode in ["moved", "moved-error", "moved-manual"] {
            let (with, without) = try await Self.both(fixture, "/hostile-moved?mode=\(mode)")
            #expect(with == without, "\(mode)")
            if mode == "moved" { #expect(with.contains(#""redirected":true"#), "\(with)") }
        }
        // Each open prefetched; only `follow` took it (the two others and the three plain opens went themselves).
        #expect(fixture.requests("GET /api/moved").count == 8)
    }

    /// Through another origin and back, the engine's own fetch stops at the other origin's redirect (it allows no
    /// CORS): a prefetch that followed the same chain to the feed must not answer the page with the feed.
    @Test @GTKActor func aPrefetchRedirectedThroughAnotherOriginIsNeverTheAnswer() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let (with, without) = try await Self.both(fixture, "/hostile-detour?mode=detour")
        #expect(with == without)
        #expect(try Self.got(with).error == "TypeError", "\(with)")
        // Only prefetches reach the feed (the container may prefetch twice: at the load and as navigation
        // starts); the page's own fetch went to the server both times, with prefetch and without.
        let prefetches = fixture.requests("GET /api/feed").count
        #expect(prefetches >= 1)
        #expect(fixture.requests("GET /api/detour").count == prefetches + 2)
    }

    @Test @GTKActor func aContainerClosedWhileThePageWaitsAnswersNothingAndNothingBreaks() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let prefetcher = try fixture.prefetcher(
            policy: PrefetchPolicy(claimWait: .milliseconds(800), allowsPrivateAddresses: true))
        do {
            let container = try fixture.container(prefetcher)
            try await container.loadAndWait(try fixture.url("/hostile-slow?mode=aborted-while-waiting"))
            // The page asked for the hanging prefetch; the view goes away while native code waits for its head.
            container.close()
        }
        try await Task.sleep(for: .milliseconds(1500))
        // The process is whole and the next view is answered as ever.
        let text = try await fixture.open("/page?user=u1&mode=plain", with: try fixture.prefetcher())
        #expect(try NetworkPrefetchGTKTests.described(text).status == 200)
    }

    /// A worker gets no runtime and its requests no answer: the worker's request reaches the server.
    @Test @GTKActor func aWorkersRequestIsNeverAnswered() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let text = try await fixture.open("/hostile?user=u1&mode=worker", with: try fixture.prefetcher())
        struct Report: Codable {
            var worker: Got
            var page: Got
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(text.utf8))
        #expect(report.worker.status == 200 && report.worker.body?.contains("for u1") == true, "\(text)")
        #expect(report.page.status == 200 && report.page.body?.contains("for u1") == true, "\(text)")
        // The worker's request reached the server. Its answer set cookies, so the page's request, made with other
        // cookies than the prefetch, went there too: the prefetch, the worker's, the page's.
        #expect(fixture.requests("worker's GET").count == 1, "\(fixture.requests(""))")
        #expect(fixture.requests("GET /api/feed").count == 3, "\(fixture.requests(""))")
    }

    /// A page that asked for a prefetch still on its way, then went to another origin, never gets the answer, and
    /// so none of its cookie effects: the engine's own fetch would have been cancelled with its document.
    @Test @GTKActor func aPageThatLeftBeforeItsAnswerCameGetsNoneOfItsCookies() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let prefetcher = try fixture.prefetcher(
            policy: PrefetchPolicy(claimWait: .seconds(5), allowsPrivateAddresses: true))
        let container = try fixture.container(prefetcher)
        defer { container.close() }
        let cookies = try await fixture.open("/hostile-late?mode=leave&other=\(fixture.other.origin)", in: container) {
            container in
            do {
                try await waitUntil(timeout: .seconds(10)) { container.engine.url?.path == "/landing" }
            } catch {
                Issue.record("\(String(describing: container.engine.url)) \(fixture.requests(""))")
                throw error
            }
            // The prefetch's answer comes 1 s after it was sent.
            try await waitUntil(timeout: .seconds(10)) { !fixture.requests("GET /api/late").isEmpty }
            try await Task.sleep(for: .seconds(2))
            let names = try await container.engine.cookieStore.cookies(for: nil).map(\.name)
            return names.filter { $0.hasPrefix("np_") }.sorted().joined(separator: " ")
        }
        #expect(!cookies.contains("np_late"), "\(cookies)")
        #expect(!fixture.jar.allCookies().contains { $0.name == "np_late" })
        // Only the prefetch reached the server: the page's ask took it.
        #expect(fixture.requests("GET /api/late").count == 1, "\(fixture.requests(""))")
        #expect(container.engine.url?.host == "127.0.0.2")
    }

    @Test @GTKActor func cacheModesFragmentsAndAFakedWebKitReadAsWithout() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        for mode in ["only-if-cached", "fragment", "no-webkit", "integrity", "no-cors"] {
            let (with, without) = try await Self.both(fixture, "/hostile?user=u1&mode=\(mode)")
            #expect(try Self.got(with) == (try Self.got(without)), "\(mode)")
            if mode == "no-webkit" { #expect(try Self.got(with).status == 200, "\(with)") }
        }
    }
}
#endif
