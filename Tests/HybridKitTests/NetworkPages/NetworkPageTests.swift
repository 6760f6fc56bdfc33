import Foundation
import HybridCookies
import HybridKitTesting
import Synchronization
import Testing

@testable import HybridKit

/// Network pages against the fake engine and a network the test answers by hand: what is shown from the native
/// fetch, and every road that leads to a plain load instead.
@Suite(.serialized) @EngineActor struct NetworkPageTests {
    /// A network the test answers by hand, one fetch (hop) at a time.
    final class ScriptedNetwork: NetworkFetching, NetworkFetchCancelling {
        let fetches = Mutex<[(request: EngineRequest, events: @Sendable (NetworkFetchEvent) -> Void)]>([])
        let cancelled = Atomic<Int>(0)
        let cookies: (any HTTPCookieHandling)?

        init(cookies: (any HTTPCookieHandling)?) { self.cookies = cookies }

        func fetch(
            _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
        ) -> any NetworkFetchCancelling {
            fetches.withLock { $0.append((request, events)) }
            return self
        }

        func cancel() { cancelled.add(1, ordering: .relaxed) }

        var requests: [EngineRequest] { fetches.withLock { $0.map(\.request) } }

        /// Answers fetch `index`, the response's `Set-Cookie` values handed to the cookie handler first, as
        /// URLSession's fetcher does.
        func answer(
            _ index: Int, status: Int = 200, headers: [String: String] = ["Content-Type": "text/html"],
            setCookies: [String] = [], body: String = "<p>page</p>"
        ) {
            let (request, sink) = fetches.withLock { $0[index] }
            cookies?.storeSetCookies(setCookies, from: request.url, firstParty: nil)
            sink(.response(SchemeResponse(statusCode: status, headers: headers)))
            sink(.data(Data(body.utf8)))
            sink(.finished)
        }
    }

    final class Networks: Sendable {
        let made = Mutex<[ScriptedNetwork]>([])
        var last: ScriptedNetwork? { made.withLock { $0.last } }
        func make(_ cookies: (any HTTPCookieHandling)?) -> any NetworkFetching {
            let network = ScriptedNetwork(cookies: cookies)
            made.withLock { $0.append(network) }
            return network
        }
    }

    @EngineActor struct Rig {
        let jar = CookieJar()
        let networks = Networks()
        let engine = FakeEngine()
        let prefetcher: NetworkPagePrefetcher
        let container: HybridContainer

        init(policy: NetworkPagePolicy = NetworkPagePolicy()) throws {
            let networks = networks
            prefetcher = try NetworkPagePrefetcher(
                origins: ["https://news.example"], policy: policy, jar: jar, userAgent: "Test/1",
                network: { networks.make($0) })
            engine.verifiesFrames = true
            container = try HybridContainer(
                configuration: ContainerConfiguration(
                    features: [NetworkPagePrefetch(prefetcher)], documentCookies: .automatic(jar: jar), recovery: nil),
                engine: engine)
        }

        var network: ScriptedNetwork { get throws { try #require(networks.last) } }

        /// Waits until the engine was asked to load something (the hand-over runs in a task of its own).
        func loaded() async throws -> [String] {
            for _ in 0..<500 where engine.loadLog.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
            return engine.loadLog
        }
    }

    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test func configurationMistakesAreTypedErrors() throws {
        let jar = CookieJar()
        #expect(throws: NetworkPageError.noOrigins) { try NetworkPagePrefetcher(origins: [], jar: jar) }
        #expect(throws: NetworkPageError.invalidOrigin("https://news.example/articles")) {
            try NetworkPagePrefetcher(origins: ["https://news.example/articles"], jar: jar)
        }
        #expect(throws: NetworkPageError.invalidOrigin("app://news")) {
            try NetworkPagePrefetcher(origins: ["app://news"], jar: jar)
        }
        #expect(throws: NetworkPageError.privateAddress("http://192.168.1.4:8080")) {
            try NetworkPagePrefetcher(origins: ["http://192.168.1.4:8080"], jar: jar)
        }
        _ = try NetworkPagePrefetcher(
            origins: ["http://127.0.0.1:8080"], policy: NetworkPagePolicy(allowsPrivateAddresses: true), jar: jar)
    }

    @Test func theDocumentIsShownWithItsURLAndItsCookiesReachTheJarAndTheEngine() async throws {
        let rig = try Rig()
        rig.jar.setCookie("sid=s1; Path=/", for: .http(try Self.url("https://news.example/")))
        try rig.container.load(try Self.url("https://news.example/a?x=1#top"))
        let network = try rig.network
        let sent = try #require(network.requests.first)
        #expect(sent.url.absoluteString == "https://news.example/a?x=1")
        #expect(sent.header("User-Agent") == "Test/1")
        #expect(sent.header("Accept")?.hasPrefix("text/html") == true)
        #expect(
            network.cookies?.cookieHeader(for: sent.url, firstParty: nil, method: "GET", includeHTTPOnly: true)
                == "sid=s1")
        network.answer(
            0, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache", "Date": "x"],
            setCookies: ["doc=d1; Path=/; HttpOnly", "evil=1; Domain=other.example; Path=/"])
        #expect(try await rig.loaded() == ["simulated https://news.example/a?x=1"])
        let shown = try #require(rig.engine.simulatedLoads.first)
        #expect(String(decoding: shown.body, as: UTF8.self) == "<p>page</p>")
        #expect(shown.response.headers["Content-Type"] == "text/html; charset=utf-8")
        // In the jar and the engine's store before the document was shown; the other domain's in neither.
        #expect(Set(rig.jar.allCookies().map(\.name)) == ["sid", "doc"])
        #expect(rig.engine.cookies.all.map(\.name) == ["doc"])
    }

    @Test func aSameOriginRedirectIsFollowedAndShownUnderTheFinalURL() async throws {
        let rig = try Rig()
        try rig.container.load(try Self.url("https://news.example/old"))
        let network = try rig.network
        network.answer(0, status: 301, headers: ["Location": "/new"], body: "")
        #expect(network.requests.map(\.url.absoluteString) == ["https://news.example/old", "https://news.example/new"])
        network.answer(1)
        #expect(try await rig.loaded() == ["simulated https://news.example/new"])
    }

    /// Another host, a private address, another port, another scheme.
    @Test(arguments: [
        "https://elsewhere.example/x", "http://10.0.0.7/admin", "https://news.example:8443/x", "http://news.example/x",
    ])
    func aRedirectElsewhereIsLeftToTheEngine(_ location: String) async throws {
        let rig = try Rig()
        try rig.container.load(try Self.url("https://news.example/a"))
        try rig.network.answer(0, status: 302, headers: ["Location": location], body: "")
        // The engine loads the page the user opened, and follows the redirect itself.
        #expect(try await rig.loaded() == ["load https://news.example/a"])
        #expect(try rig.network.requests.count == 1)
    }

    @Test func aRedirectThatSetsCookiesIsLeftToTheEngine() async throws {
        let rig = try Rig()
        try rig.container.load(try Self.url("https://news.example/login"))
        try rig.network.answer(0, status: 302, headers: ["Location": "/home"], setCookies: ["s=1; Path=/"], body: "")
        #expect(try await rig.loaded() == ["load https://news.example/login"])
        // Nothing the native fetch saw reached the jar: the engine's own load sets it.
        #expect(rig.jar.allCookies().isEmpty)
    }

    @Test(arguments: [
        [:] as [String: String], ["Content-Type": "application/json"], ["Content-Type": "text/plain"],
        ["Content-Type": "text/html", "Strict-Transport-Security": "max-age=31536000"],
        ["Content-Type": "text/html", "Clear-Site-Data": "\"cookies\""],
        ["Content-Type": "text/html", "Content-Disposition": "attachment; filename=a.html"],
        // Another variant than the engine's own request would get: the native fetch sent no languages as the
        // engine's.
        ["Content-Type": "text/html", "Vary": "Accept-Language"], ["Content-Type": "text/html", "Vary": "*"],
    ])
    func whatTheSimulatedLoadCannotCarryIsLeftToTheEngine(_ headers: [String: String]) async throws {
        let rig = try Rig()
        try rig.container.load(try Self.url("https://news.example/a"))
        try rig.network.answer(0, headers: headers, setCookies: ["doc=d1"])
        #expect(try await rig.loaded() == ["load https://news.example/a"])
        #expect(rig.jar.allCookies().isEmpty)
    }

    /// A document that varies only on what the native fetch sends as the engine would (its `User-Agent`, given to the
    /// prefetcher, and a document's `Accept`), on the encoding it decodes, or on cookies (the jar's) is shown from the
    /// native fetch.
    @Test func aDocumentThatVariesOnWhatTheNativeFetchSendsAsTheEngineIsShown() async throws {
        let rig = try Rig()
        try rig.container.load(try Self.url("https://news.example/a"))
        try rig.network.answer(
            0, headers: ["Content-Type": "text/html", "Vary": "User-Agent, Accept, Accept-Encoding, Cookie, Origin"])
        #expect(try await rig.loaded() == ["simulated https://news.example/a"])
    }

    @Test(arguments: [204, 206, 404, 500])
    func aStatusOtherThan200IsLeftToTheEngine(_ status: Int) async throws {
        let rig = try Rig()
        try rig.container.load(try Self.url("https://news.example/a"))
        try rig.network.answer(0, status: status)
        #expect(try await rig.loaded() == ["load https://news.example/a"])
    }

    @Test func aDocumentOverTheBoundIsDroppedAndTheNetworkCancelled() async throws {
        let rig = try Rig(policy: NetworkPagePolicy(maximumDocumentBytes: 1024))
        try rig.container.load(try Self.url("https://news.example/a"))
        let network = try rig.network
        let sink = try #require(network.fetches.withLock { $0.first?.events })
        sink(.response(SchemeResponse(statusCode: 200, headers: ["Content-Type": "text/html"])))
        for _ in 0..<4 { sink(.data(Data(count: 512))) }
        #expect(try await rig.loaded() == ["load https://news.example/a"])
        #expect(network.cancelled.load(ordering: .relaxed) == 1)
    }

    @Test func anEngineThatRefusesTheSimulatedLoadGetsThePlainOne() async throws {
        let rig = try Rig()
        rig.engine.simulatedLoadRefusal = .unsupported("a header")
        try rig.container.load(try Self.url("https://news.example/a"))
        try rig.network.answer(0)
        #expect(try await rig.loaded() == ["load https://news.example/a"])
    }

    @Test func aLaterLoadSupersedesAPendingOne() async throws {
        let rig = try Rig()
        try rig.container.load(try Self.url("https://news.example/a"))
        let first = try rig.network
        try rig.container.load(try Self.url("https://elsewhere.example/b"))
        first.answer(0)
        #expect(try await rig.loaded() == ["load https://elsewhere.example/b"])
        // The superseded hand-over shows nothing, however long it is given.
        for _ in 0..<20 { await Task.yield() }
        #expect(rig.engine.loadLog == ["load https://elsewhere.example/b"])
    }

    @Test func aClosedContainerShowsNothing() async throws {
        let rig = try Rig()
        try rig.container.load(try Self.url("https://news.example/a"))
        rig.container.close()
        try rig.network.answer(0)
        for _ in 0..<20 { await Task.yield() }
        #expect(rig.engine.loadLog.isEmpty)
    }

    @Test func aTapPrefetchIsUsedOnceAndANoStoreOneIsNotKept() async throws {
        let rig = try Rig()
        let page = try Self.url("https://news.example/a")
        #expect(rig.prefetcher.prefetch(for: page))
        #expect(!rig.prefetcher.prefetch(for: page))
        #expect(!rig.prefetcher.prefetch(for: try Self.url("https://elsewhere.example/a")))
        try rig.network.answer(0, headers: ["Content-Type": "text/html", "Cache-Control": "private, no-store"])
        try rig.container.load(page)
        // Made on the tap, no-store: not kept for the load, which goes to the engine.
        #expect(try await rig.loaded() == ["load https://news.example/a"])
        #expect(rig.networks.made.withLock { $0.count } == 1)
    }

    @Test func aTapPrefetchIsShownWithoutASecondRequest() async throws {
        let rig = try Rig()
        let page = try Self.url("https://news.example/a")
        #expect(rig.prefetcher.prefetch(for: page))
        try rig.network.answer(0)
        try rig.container.load(page)
        #expect(try await rig.loaded() == ["simulated https://news.example/a"])
        #expect(rig.networks.made.withLock { $0.count } == 1)
    }

    /// A cold view's web process starts when the fetch does, not once the document is in; the document waits
    /// for the blank start page to end (their events never mix), and the blank page's events reach no one. A
    /// document a tap fetched already gets no such start.
    @Test func aColdViewStartsItsProcessOnlyWhileItsDocumentIsFetched() async throws {
        let rig = try Rig()
        rig.engine.startsWebProcess = true
        let events = rig.container.loadEvents()
        try rig.container.load(try Self.url("https://news.example/a"))
        #expect(rig.engine.loadLog == ["start process"])
        try rig.network.answer(0)
        for _ in 0..<50 { await Task.yield() }
        #expect(rig.engine.loadLog == ["start process"], "shown before the blank page ended")
        let blank = try Self.url("about:blank")
        rig.engine.navigationDelegate?.didStartNavigation(to: blank)
        rig.engine.navigationDelegate?.didCommitNavigation(to: blank)
        rig.engine.navigationDelegate?.didFinishNavigation(to: blank)
        for _ in 0..<500 where rig.engine.loadLog.count < 2 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(rig.engine.loadLog == ["start process", "simulated https://news.example/a"])
        let page = try Self.url("https://news.example/a")
        rig.engine.navigationDelegate?.didStartNavigation(to: page)
        rig.container.close()
        var seen: [PageLoadEvent] = []
        for await event in events { seen.append(event) }
        #expect(seen == [.started(page)])

        let tapped = try Rig()
        tapped.engine.startsWebProcess = true
        let other = try Self.url("https://news.example/b")
        #expect(tapped.prefetcher.prefetch(for: other))
        try tapped.network.answer(0)
        try tapped.container.load(other)
        #expect(try await tapped.loaded() == ["simulated https://news.example/b"])
    }

    /// A cold view whose blank start page outlasted the wait, so the page's load went ahead (a simulated load):
    /// `engine` then tells the container what `replay` says, and the events the host heard come back.
    func afterALateBlankStart(
        _ replay: (any NavigationDelegate, URL) -> Void
    ) async throws -> (seen: [PageLoadEvent], page: URL) {
        let rig = try Rig(policy: NetworkPagePolicy(maximumWait: .milliseconds(20)))
        rig.engine.startsWebProcess = true
        let events = rig.container.loadEvents()
        let page = try Self.url("https://news.example/a")
        try rig.container.load(page)
        try rig.network.answer(0)
        for _ in 0..<500 where rig.engine.loadLog.count < 2 { try await Task.sleep(for: .milliseconds(2)) }
        #expect(rig.engine.loadLog == ["start process", "simulated https://news.example/a"])
        rig.engine.currentURL = page
        replay(try #require(rig.engine.navigationDelegate), page)
        rig.container.close()
        var seen: [PageLoadEvent] = []
        for await event in events { seen.append(event) }
        return (seen, page)
    }

    /// A blank start page that outlasts the wait may still end after the page's load went ahead, and WebKitGTK
    /// names that end with the view's URI by then, the page's: it is not the page's end (a host waiting for the
    /// page would take it for the page's and read a blank document). The page's own events pass as ever.
    @Test func aBlankStartThatEndsPastTheWaitIsNotThePagesEnd() async throws {
        let (seen, page) = try await afterALateBlankStart { delegate, page in
            delegate.didCommitNavigation(to: page)
            delegate.didFinishNavigation(to: page)
            delegate.didStartNavigation(to: page)
            delegate.didCommitNavigation(to: page)
            delegate.didFinishNavigation(to: page)
        }
        #expect(seen == [.started(page), .committed(page), .finished(page)])
    }

    /// The blank document ends only after the page's load started (WebKitGTK can order them so): that end, named
    /// with the page's URL, comes before the page's commit and is still the blank document's.
    @Test func aBlankStartThatEndsAfterThePagesStartIsNotThePagesEnd() async throws {
        let (seen, page) = try await afterALateBlankStart { delegate, page in
            delegate.didStartNavigation(to: page)
            delegate.didFinishNavigation(to: page)
            delegate.didCommitNavigation(to: page)
            delegate.didFinishNavigation(to: page)
        }
        #expect(seen == [.started(page), .committed(page), .finished(page)])
    }

    /// The order WebKitGTK 2.50 gave under load (seen in a trace of a failing run): the blank document's start is
    /// reported only once its process is up, after the page's load went ahead, and named with the page's URL; then
    /// the blank document commits and finishes under `about:blank`; then the page's load starts. Neither of the
    /// blank document's ends is the page's.
    @Test func aBlankStartReportedLateCommitsAndEndsAsTheBlankPage() async throws {
        let blank = try Self.url("about:blank")
        let (seen, page) = try await afterALateBlankStart { delegate, page in
            delegate.didStartNavigation(to: page)
            delegate.didCommitNavigation(to: blank)
            delegate.didFinishNavigation(to: blank)
            delegate.didStartNavigation(to: page)
            delegate.didCommitNavigation(to: page)
            delegate.didFinishNavigation(to: page)
        }
        #expect(seen == [.started(page), .started(page), .committed(page), .finished(page)])
    }

    /// The blank document dropped before its process was up: WebKitGTK reports no event of it, and starts the
    /// page's load naming no URL. The host hears the page's URL.
    @Test func aPageStartNamingNoURLAfterALateBlankStartNamesThePage() async throws {
        let (seen, page) = try await afterALateBlankStart { delegate, page in
            delegate.didStartNavigation(to: nil)
            delegate.didCommitNavigation(to: page)
            delegate.didFinishNavigation(to: page)
        }
        #expect(seen == [.started(page), .committed(page), .finished(page)])
    }

    /// After the page's start, a failure is the page's own and is reported, even while the blank document may still
    /// end.
    @Test func aPageThatFailsAfterALateBlankStartIsReported() async throws {
        let (seen, page) = try await afterALateBlankStart { delegate, page in
            delegate.didStartNavigation(to: page)
            delegate.didFailNavigation(to: page, error: "Could not connect")
        }
        #expect(seen.first == .started(page))
        guard seen.count == 2, case .failed(let failure) = seen[1] else {
            Issue.record("\(seen)")
            return
        }
        #expect(failure.url == page)
    }

    @Test func requestsThatAreNotPlainDocumentGETsLoadAsTheyAre() throws {
        let rig = try Rig()
        try rig.container.load(
            EngineRequest(url: try Self.url("https://news.example/form"), method: "POST", body: Data("a".utf8)))
        var withCookie = EngineRequest(url: try Self.url("https://news.example/a"))
        withCookie.headers = [("Cookie", "x=1")]
        try rig.container.load(withCookie)
        try rig.container.load(try Self.url("https://elsewhere.example/"))
        #expect(
            rig.engine.loadLog == [
                "load https://news.example/form", "load https://news.example/a", "load https://elsewhere.example/",
            ])
        #expect(rig.networks.made.withLock { $0.isEmpty })
    }
}
