import Foundation
import HybridCookies
import Synchronization
import Testing

@testable import HybridKit

/// The answering side without an engine: what a page's request gets, and when the network gets it instead.
struct PrefetchAnsweringTests {
    /// A network the test answers by hand; every fetch is recorded.
    final class ScriptedNetwork: NetworkFetching, NetworkFetchCancelling {
        let fetches = Mutex<[(request: EngineRequest, events: @Sendable (NetworkFetchEvent) -> Void)]>([])
        let cancelled = Atomic<Int>(0)
        /// Each fetch's `followRedirects`, in order.
        let follows = Mutex<[Bool]>([])
        let cookies: (any HTTPCookieHandling)?

        init(cookies: (any HTTPCookieHandling)? = nil) { self.cookies = cookies }

        func fetch(
            _ request: EngineRequest, followRedirects: Bool,
            events: @escaping @Sendable (NetworkFetchEvent) -> Void
        ) -> any NetworkFetchCancelling {
            _ = cookies?.cookieHeader(for: request.url, firstParty: nil, method: request.method, includeHTTPOnly: true)
            fetches.withLock { $0.append((request, events)) }
            follows.withLock { $0.append(followRedirects) }
            return self
        }

        func cancel() { cancelled.add(1, ordering: .relaxed) }

        var count: Int { fetches.withLock { $0.count } }

        func answer(_ index: Int, _ events: [NetworkFetchEvent]) {
            let sink = fetches.withLock { $0[index].events }
            for event in events { sink(event) }
        }
    }

    final class Received: Sendable {
        let events = Mutex<[NetworkFetchEvent]>([])
        func sink(_ event: NetworkFetchEvent) { events.withLock { $0.append(event) } }
        var all: [NetworkFetchEvent] { events.withLock { $0 } }
    }

    struct Rig {
        let jar = CookieJar()
        let pageNetwork = ScriptedNetwork()
        let prefetcher: FirstScreenPrefetcher
        let answers: PrefetchAnswers
        let fetcher: PrefetchAnsweringFetcher

        init(policy: PrefetchPolicy = PrefetchPolicy()) throws {
            let site = try PrefetchDeclarationTests.site()
            let holder = ScriptedHolder()
            prefetcher = try FirstScreenPrefetcher(
                site: site,
                declarations: PrefetchDeclarations(pages: [
                    PagePrefetch(page: "/", requests: [PrefetchRequest(url: "/api/feed")])
                ]),
                policy: policy, jar: jar,
                network: { cookies in holder.make(cookies) })
            answers = PrefetchAnswers(prefetcher: prefetcher)
            fetcher = PrefetchAnsweringFetcher(base: pageNetwork, answers: answers)
            self.holder = holder
        }

        let holder: ScriptedHolder

        var prefetch: ScriptedNetwork? { holder.networks.withLock { $0.last } }

        func open() { answers.pageWillOpen(PrefetchAnsweringTests.url("hybrid://shop.example/")) }

        func pageRequest(
            _ url: String = "https://shop.example/api/feed", method: String = "GET",
            credentials: String = "same-origin",
            headers: [(String, String)] = []
        ) -> EngineRequest {
            var request = EngineRequest(url: URL(string: url) ?? URL(filePath: "/"), method: method)
            request.headers = [(PrefetchAnswers.stampHeader, answers.token + " " + credentials)] + headers
            return request
        }
    }

    final class ScriptedHolder: Sendable {
        let networks = Mutex<[ScriptedNetwork]>([])
        func make(_ cookies: (any HTTPCookieHandling)?) -> any NetworkFetching {
            let network = ScriptedNetwork(cookies: cookies)
            networks.withLock { $0.append(network) }
            return network
        }
    }

    /// A URL the test spells out (a typo shows as a file URL in the failure).
    static func url(_ text: String) -> URL { URL(string: text) ?? URL(filePath: "/invalid") }
    static let root = url("https://shop.example/")
    static let feed = url("https://shop.example/api/feed")
    static let head = NetworkFetchEvent.response(SchemeResponse(statusCode: 200, headers: ["X-A": "1"]))

    @Test func oncePerPrefetchAndStreamedIfStillArriving() throws {
        let rig = try Rig()
        rig.open()
        let prefetch = try #require(rig.prefetch)
        #expect(prefetch.count == 1)
        prefetch.answer(0, [Self.head, .data(Data("ab".utf8))])
        let first = Received()
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: first.sink)
        prefetch.answer(0, [.data(Data("cd".utf8)), .finished])
        #expect(first.all == [Self.head, .data(Data("ab".utf8)), .data(Data("cd".utf8)), .finished])
        #expect(rig.pageNetwork.count == 0)
        // The second asker goes to the network, stamp removed.
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: Received().sink)
        #expect(rig.pageNetwork.count == 1)
        #expect(rig.pageNetwork.fetches.withLock { $0[0].request.header(PrefetchAnswers.stampHeader) } == nil)
    }

    @Test func setCookieReachesTheJarAtTheHandOverNotOnArrival() throws {
        let rig = try Rig()
        rig.open()
        let prefetch = try #require(rig.prefetch)
        prefetch.cookies?.storeSetCookies(
            ["fresh=1; Path=/"], from: Self.feed, firstParty: nil)
        prefetch.answer(0, [Self.head, .finished])
        #expect(rig.jar.allCookies().isEmpty)
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: Received().sink)
        #expect(rig.jar.allCookies().map(\.name) == ["fresh"])
    }

    /// A response that varies (`Vary`) on a header the page's request has otherwise than the prefetch's is another
    /// variant: the page fetches itself, and nothing of it (head, body, cookies) reaches the page or the jar.
    @Test(arguments: [
        ("Accept-Language", [("Accept-Language", "de")], false),
        ("Accept-Language", [], true),
        ("X-Api-Version, Accept-Language", [("X-Api-Version", "2")], false),
        ("*", [], false),
        ("Accept-Encoding, Origin, Cookie", [("Accept-Encoding", "br"), ("Origin", "hybrid://shop.example")], true),
    ])
    func aResponseThatVariesOnAHeaderThePageSendsOtherwiseIsAMiss(
        vary: String, pageHeaders: [(String, String)], answered: Bool
    ) throws {
        let rig = try Rig()
        rig.open()
        let prefetch = try #require(rig.prefetch)
        prefetch.cookies?.storeSetCookies(["variant=1; Path=/"], from: Self.feed, firstParty: nil)
        let head = NetworkFetchEvent.response(SchemeResponse(statusCode: 200, headers: ["Vary": vary]))
        prefetch.answer(0, [head, .data(Data("en".utf8)), .finished])
        let page = Received()
        _ = rig.fetcher.fetch(rig.pageRequest(headers: pageHeaders), followRedirects: true, events: page.sink)
        if answered {
            #expect(page.all == [head, .data(Data("en".utf8)), .finished])
            #expect(rig.pageNetwork.count == 0)
        } else {
            #expect(page.all.isEmpty)
            #expect(rig.pageNetwork.count == 1)
            #expect(rig.jar.allCookies().isEmpty)
        }
    }

    /// The page's document is gone before the head came (WebKitGTK does not stop a scheme handler's task then): the
    /// request fails, the network is cancelled and the cookies stay out of the jar; a claim made for a document
    /// that is already gone is a miss.
    @Test func aPageThatLeftGetsNothingMoreAndItsCookiesStayOut() throws {
        let rig = try Rig()
        rig.open()
        let prefetch = try #require(rig.prefetch)
        prefetch.cookies?.storeSetCookies(["left=1; Path=/"], from: Self.feed, firstParty: nil)
        let page = Received()
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: page.sink)
        rig.answers.mainFrameCommitted()
        prefetch.answer(0, [Self.head, .finished])
        guard case .failed = page.all.first else {
            Issue.record("\(page.all)")
            return
        }
        #expect(page.all.count == 1)
        #expect(prefetch.cancelled.load(ordering: .relaxed) == 1)
        #expect(rig.jar.allCookies().isEmpty)
        #expect(rig.pageNetwork.count == 0)
    }

    @Test func changedCookiesAnotherOriginAndUnstampedRequestsMiss() throws {
        let rig = try Rig()
        rig.open()
        let prefetch = try #require(rig.prefetch)
        prefetch.answer(0, [Self.head, .finished])
        // No stamp (a frame, a worker): the network.
        var unstamped = rig.pageRequest()
        unstamped.headers.removeAll { $0.name == PrefetchAnswers.stampHeader }
        _ = rig.fetcher.fetch(unstamped, followRedirects: true, events: Received().sink)
        // A forged stamp.
        var forged = rig.pageRequest()
        forged.headers = [(PrefetchAnswers.stampHeader, "guess same-origin")]
        _ = rig.fetcher.fetch(forged, followRedirects: true, events: Received().sink)
        // Another origin's request.
        _ = rig.fetcher.fetch(
            rig.pageRequest(headers: [("Origin", "https://evil.example")]), followRedirects: true,
            events: Received().sink)
        // Manual redirects.
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: false, events: Received().sink)
        // An Authorization header the declaration does not name changes the answer.
        _ = rig.fetcher.fetch(
            rig.pageRequest(headers: [("Authorization", "Bearer x")]), followRedirects: true, events: Received().sink)
        #expect(rig.pageNetwork.count == 5)
        // The jar changed since the prefetch was sent: a miss, and the prefetch is waste.
        rig.jar.setCookie("sid=new; Path=/", for: .http(Self.root))
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: Received().sink)
        #expect(rig.pageNetwork.count == 6)
        #expect(rig.prefetcher.pending(for: Self.root).isEmpty)
    }

    @Test func anOversizedPrefetchIsDroppedAndThePageFetchesItself() throws {
        let rig = try Rig(policy: PrefetchPolicy(maximumResponseBytes: 4))
        rig.open()
        let prefetch = try #require(rig.prefetch)
        prefetch.answer(0, [Self.head, .data(Data("too long".utf8))])
        #expect(prefetch.cancelled.load(ordering: .relaxed) == 1)
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: Received().sink)
        #expect(rig.pageNetwork.count == 1)
    }

    @Test func anExpiredPrefetchIsWaste() async throws {
        let rig = try Rig(policy: PrefetchPolicy(timeToLive: .milliseconds(50)))
        rig.open()
        try #require(rig.prefetch).answer(0, [Self.head, .finished])
        try await Task.sleep(for: .milliseconds(120))
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: Received().sink)
        #expect(rig.pageNetwork.count == 1)
    }

    @Test func anEndlessPrefetchGivesUpAfterTheClaimWait() async throws {
        let rig = try Rig(policy: PrefetchPolicy(claimWait: .milliseconds(50)))
        rig.open()
        let received = Received()
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: received.sink)
        #expect(rig.pageNetwork.count == 0)
        let moved = await waitUntil(timeout: .seconds(5)) { rig.pageNetwork.count == 1 }
        #expect(moved)
        rig.pageNetwork.answer(0, [Self.head, .finished])
        // The page sees the network's answer only; a late prefetch answer goes nowhere.
        try #require(rig.prefetch).answer(0, [Self.head, .data(Data("late".utf8)), .finished])
        #expect(received.all == [Self.head, .finished])
    }

    @Test func thePageReadsWhatWasPrefetched() throws {
        let rig = try Rig()
        rig.open()
        let received = Received()
        _ = rig.fetcher.fetch(
            rig.pageRequest("https://shop.example" + PrefetchAnswers.ownPath), followRedirects: true,
            events: received.sink)
        guard case .data(let body) = received.all.dropFirst().first else {
            Issue.record("no body: \(received.all)")
            return
        }
        #expect(String(decoding: body, as: UTF8.self).contains(#""state":"waiting""#))
        #expect(rig.pageNetwork.count == 0)
    }

    @Test func hitsMissesAndWasteAreCounted() async throws {
        // One summary for the whole test process, and other prefetch tests may run alongside: deltas, at least.
        let metrics = MetricsSummary.installed()
        func total(_ outcome: String) -> Int {
            Int(metrics.total(HybridMetrics.prefetches, where: [("outcome", outcome)]))
        }
        let before = ["started", "hit", "miss", "waste"].map(total)
        let rig = try Rig(policy: PrefetchPolicy(timeToLive: .milliseconds(50)))
        rig.open()
        try #require(rig.prefetch).answer(0, [Self.head, .finished])
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: Received().sink)
        _ = rig.fetcher.fetch(rig.pageRequest(), followRedirects: true, events: Received().sink)
        rig.answers.pageWillOpen(Self.url("https://shop.example/?again=1"))
        try await Task.sleep(for: .milliseconds(120))
        rig.answers.pageWillOpen(Self.url("https://shop.example/?again=2"))
        let after = ["started", "hit", "miss", "waste"].map(total)
        #expect(after[0] - before[0] >= 3)
        #expect(after[1] - before[1] >= 1)
        #expect(after[2] - before[2] >= 1)
        #expect(after[3] - before[3] >= 1)
    }
}
