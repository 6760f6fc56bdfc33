import Foundation
import Synchronization
import Testing

@testable import HybridKit

/// RFC 9111's private-cache rules over Foundation's URLCache, through the package network's caching fetcher.
struct HTTPResponseCacheTests {
    typealias Scripted = PrefetchAnsweringTests.ScriptedNetwork
    typealias Received = PrefetchAnsweringTests.Received

    static func url(_ text: String) -> URL { PrefetchAnsweringTests.url(text) }

    /// A jar whose `Cookie` header the test sets: who the user is.
    final class SwitchableCookies: HTTPCookieHandling {
        let header = Mutex<String?>(nil)
        func cookieHeader(for url: URL, firstParty: URL?, method: String, includeHTTPOnly: Bool) -> String? {
            header.withLock { $0 }
        }
        func storeSetCookies(_ values: [String], from url: URL, firstParty: URL?) {}
    }

    struct Rig {
        let network = Scripted()
        let cookies = SwitchableCookies()
        let cache = HTTPResponseCache(directory: URL.temporaryDirectory.appending(path: "http-cache-\(UUID())"))
        var fetcher: CachingNetworkFetcher { CachingNetworkFetcher(base: network, cache: cache, cookies: cookies) }

        /// Fetches `url` and returns what the page got; the network's answer (if it is asked) is `answer`.
        func get(
            _ url: String, headers: [(String, String)] = [], method: String = "GET", followRedirects: Bool = true,
            answer: [NetworkFetchEvent] = []
        ) -> [NetworkFetchEvent] {
            let before = network.count
            let received = Received()
            var request = EngineRequest(url: HTTPResponseCacheTests.url(url), method: method)
            request.headers = headers
            _ = fetcher.fetch(request, followRedirects: followRedirects, events: received.sink)
            if network.count > before { network.answer(before, answer) }
            return received.all
        }
    }

    static func response(_ headers: [String: String], status: Int = 200) -> NetworkFetchEvent {
        var all = headers
        all["Date"] = all["Date"] ?? HTTPDate.format(Date())
        return .response(SchemeResponse(statusCode: status, headers: all))
    }

    static func body(_ events: [NetworkFetchEvent]) -> String {
        events.compactMap { if case .data(let data) = $0 { String(decoding: data, as: UTF8.self) } else { nil } }
            .joined()
    }

    /// A network that passes `Set-Cookie` on (a host's own fetcher may): the stored response keeps none, so a replay
    /// sets nothing again and the cookie's value is in none of the cache's files.
    @Test func aSetCookieIsNeverStoredOrReplayed() throws {
        let directory = URL.temporaryDirectory.appending(path: "http-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let network = Scripted()
        let fetcher = CachingNetworkFetcher(base: network, cache: HTTPResponseCache(directory: directory), cookies: nil)
        let request = EngineRequest(url: Self.url("https://shop.example/api/c"))
        _ = fetcher.fetch(request, followRedirects: true, events: Received().sink)
        network.answer(
            0,
            [
                Self.response(["Cache-Control": "max-age=60", "Set-Cookie": "session=s3cr3t-value; Path=/"]),
                .data(Data("c".utf8)), .finished,
            ])
        let replay = Received()
        _ = fetcher.fetch(request, followRedirects: true, events: replay.sink)
        #expect(network.count == 1)
        #expect(Self.body(replay.all) == "c")
        guard case .response(let head) = replay.all.first else {
            Issue.record("\(replay.all)")
            return
        }
        #expect(!head.headers.keys.contains { $0.lowercased() == "set-cookie" }, "\(head.headers)")
        let files =
            FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        #expect(!files.isEmpty)
        for file in files {
            let data = (try? Data(contentsOf: file)) ?? Data()
            #expect(data.range(of: Data("s3cr3t-value".utf8)) == nil, "\(file.path)")
        }
    }

    @Test func aFreshResponseIsServedWithoutTheNetwork() {
        let rig = Rig()
        let first = rig.get(
            "https://shop.example/api/a",
            answer: [Self.response(["Cache-Control": "max-age=60", "X-A": "1"]), .data(Data("one".utf8)), .finished])
        let second = rig.get("https://shop.example/api/a", answer: [.failed("must not be asked")])
        #expect(rig.network.count == 1)
        #expect(Self.body(first) == "one")
        #expect(Self.body(second) == "one")
        guard case .response(let head) = second.first else {
            Issue.record("\(second)")
            return
        }
        #expect(head.statusCode == 200)
        #expect(head.headers["X-A"] == "1")
        #expect(head.headers["Age"] != nil)
    }

    /// Signing out, or in as someone else, must not replay what the previous user was sent, fresh or not.
    @Test func aStoredResponseAnswersOnlyTheCookiesAndAuthorizationItWasFetchedWith() {
        let rig = Rig()
        let fresh: [NetworkFetchEvent] = [
            Self.response(["Cache-Control": "max-age=600"]), .data(Data("alice".utf8)), .finished,
        ]
        rig.cookies.header.withLock { $0 = "session=alice" }
        _ = rig.get("https://shop.example/api/me", answer: fresh)
        #expect(Self.body(rig.get("https://shop.example/api/me", answer: [.failed("no")])) == "alice")
        #expect(rig.network.count == 1)
        rig.cookies.header.withLock { $0 = "session=bob" }
        let bob = rig.get(
            "https://shop.example/api/me",
            answer: [Self.response(["Cache-Control": "max-age=600"]), .data(Data("bob".utf8)), .finished])
        #expect(rig.network.count == 2)
        #expect(Self.body(bob) == "bob")
        rig.cookies.header.withLock { $0 = nil }
        _ = rig.get("https://shop.example/api/me", answer: [Self.response([:], status: 401), .finished])
        #expect(rig.network.count == 3)
        // The same cookies with another bearer token is another user too.
        rig.cookies.header.withLock { $0 = "session=bob" }
        _ = rig.get("https://shop.example/api/t", headers: [("Authorization", "Bearer a")], answer: fresh)
        _ = rig.get("https://shop.example/api/t", headers: [("Authorization", "Bearer b")], answer: fresh)
        #expect(rig.network.count == 5)
        #expect(Self.body(rig.get("https://shop.example/api/t", headers: [("Authorization", "Bearer b")])) == "alice")
        #expect(rig.network.count == 5)
        // No cookie value is written to the cache's files.
        #expect(!HTTPResponseCache.credentialState(cookieHeader: "session=bob", authorization: nil).contains("bob"))
    }

    /// A server sending the header the cache keeps its own record in cannot make the cache read its forgery.
    @Test func aServersOwnMetaHeaderIsNotTakenForTheCaches() {
        let rig = Rig()
        let forged = Data(
            #"{"url":"https://shop.example/x","status":200,"requestTime":4e9,"responseTime":4e9,"varied":{},"credentials":"x"}"#
                .utf8)
        _ = rig.get(
            "https://shop.example/x",
            answer: [
                Self.response(["Cache-Control": "max-age=60", "x-hybrid-cache-meta": forged.base64EncodedString()]),
                .data(Data("real".utf8)), .finished,
            ])
        let second = rig.get("https://shop.example/x", answer: [.failed("no")])
        #expect(Self.body(second) == "real")
        #expect(rig.network.count == 1)
    }

    /// A main document, or a fetch with `redirect: 'error'`, must see the redirect itself: the cache passes the
    /// caller's choice through and never stores a redirect.
    @Test func redirectsPassThroughAndAreNeverStored() {
        let rig = Rig()
        let moved: [NetworkFetchEvent] = [
            Self.response(["Location": "https://other.example/", "Cache-Control": "max-age=600"], status: 301),
            .finished,
        ]
        let first = rig.get("https://shop.example/old", followRedirects: false, answer: moved)
        #expect(rig.network.follows.withLock { $0 } == [false])
        guard case .response(let head) = first.first else {
            Issue.record("\(first)")
            return
        }
        #expect(head.statusCode == 301)
        // Not stored: a caller that follows redirects goes to the network and follows.
        _ = rig.get("https://shop.example/old", answer: [.failed("offline")])
        #expect(rig.network.follows.withLock { $0 } == [false, true])
    }

    @Test func aStaleResponseIsRevalidatedAndA304Refreshes() {
        let rig = Rig()
        _ = rig.get(
            "https://shop.example/img/a.png",
            answer: [
                Self.response(["Cache-Control": "max-age=0", "ETag": "\"v1\""]), .data(Data("png".utf8)), .finished,
            ])
        let revalidated = rig.get(
            "https://shop.example/img/a.png",
            answer: [Self.response(["Cache-Control": "max-age=60", "ETag": "\"v1\""], status: 304), .finished])
        #expect(rig.network.count == 2)
        #expect(rig.network.fetches.withLock { $0[1].request.header("If-None-Match") } == "\"v1\"")
        #expect(Self.body(revalidated) == "png")
        // Refreshed for a minute by the 304: no third request.
        #expect(Self.body(rig.get("https://shop.example/img/a.png", answer: [.failed("no")])) == "png")
        #expect(rig.network.count == 2)
    }

    @Test func noStoreVaryStarVaryCookieAndUnvalidatedResponsesAreNotStored() {
        let rig = Rig()
        for (path, headers) in [
            ("a", ["Cache-Control": "no-store, max-age=60"]), ("b", ["Cache-Control": "max-age=60", "Vary": "*"]),
            ("c", ["Cache-Control": "max-age=60", "Vary": "Cookie"]), ("d", [:]),
        ] {
            _ = rig.get(
                "https://shop.example/\(path)", answer: [Self.response(headers), .data(Data("x".utf8)), .finished])
            _ = rig.get("https://shop.example/\(path)", answer: [Self.response(headers), .finished])
        }
        #expect(rig.network.count == 8)
    }

    @Test func varyAndTheRequestSOwnDirectivesAreHonoured() {
        let rig = Rig()
        let fresh = Self.response(["Cache-Control": "max-age=60", "Vary": "Accept-Language"])
        _ = rig.get("https://shop.example/v", headers: [("Accept-Language", "fr")], answer: [fresh, .finished])
        _ = rig.get("https://shop.example/v", headers: [("Accept-Language", "fr")], answer: [fresh, .finished])
        #expect(rig.network.count == 1)
        _ = rig.get("https://shop.example/v", headers: [("Accept-Language", "en")], answer: [fresh, .finished])
        #expect(rig.network.count == 2)
        // The page's own no-cache, no-store, conditionals and ranges go to the network.
        for header in [("Cache-Control", "no-cache"), ("Cache-Control", "no-store"), ("Range", "bytes=0-1")] {
            _ = rig.get(
                "https://shop.example/v", headers: [("Accept-Language", "en"), header], answer: [fresh, .finished])
        }
        #expect(rig.network.count == 5)
    }

    @Test func urlsThatDifferOnlyInTheirQueryAreStoredApart() {
        let rig = Rig()
        let fresh = Self.response(["Cache-Control": "max-age=60"])
        _ = rig.get("https://shop.example/q?r=1", answer: [fresh, .data(Data("one".utf8)), .finished])
        let other = rig.get("https://shop.example/q?r=2", answer: [fresh, .data(Data("two".utf8)), .finished])
        #expect(Self.body(other) == "two")
        #expect(Self.body(rig.get("https://shop.example/q?r=1", answer: [.failed("no")])) == "one")
        #expect(rig.network.count == 2)
    }

    @Test func anUnsafeMethodInvalidates() {
        let rig = Rig()
        let fresh = Self.response(["Cache-Control": "max-age=60"])
        _ = rig.get("https://shop.example/cart", answer: [fresh, .data(Data("old".utf8)), .finished])
        _ = rig.get("https://shop.example/cart", method: "POST", answer: [Self.response([:]), .finished])
        let after = rig.get("https://shop.example/cart", answer: [fresh, .data(Data("new".utf8)), .finished])
        #expect(Self.body(after) == "new")
        #expect(rig.network.count == 3)
    }

    @Test func freshnessFollowsRFC9111() throws {
        let date = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == date)
        let base = ["Date": "Sun, 06 Nov 1994 08:49:37 GMT"]
        #expect(CacheRules.freshnessLifetime(base.merging(["Cache-Control": "max-age=30"]) { $1 }, status: 200) == 30)
        #expect(
            CacheRules.freshnessLifetime(base.merging(["Expires": "Sun, 06 Nov 1994 08:50:37 GMT"]) { $1 }, status: 200)
                == 60)
        #expect(CacheRules.freshnessLifetime(base.merging(["Expires": "0"]) { $1 }, status: 200) == 0)
        // Heuristic: 10 % of the time since Last-Modified.
        #expect(
            CacheRules.freshnessLifetime(
                base.merging(["Last-Modified": "Sun, 06 Nov 1994 07:49:37 GMT"]) { $1 }, status: 200) == 360)
        let age = CacheRules.currentAge(
            base.merging(["Age": "10"]) { $1 }, requestTime: date, responseTime: date.addingTimeInterval(2),
            now: date.addingTimeInterval(5))
        #expect(age == 15)
    }

    /// Delta-seconds are digits only; one too large for the cache is 2^31 (RFC 9111 §1.2.2), never 0 or a trap.
    @Test func deltaSecondsAreDigitsOnlyAndSaturate() throws {
        #expect(CacheControl("max-age=99999999999999999999999").maxAge == CacheControl.deltaSecondsCeiling)
        #expect(CacheControl("max-age=2147483647").maxAge == 2_147_483_647)
        for bad in ["-5", "+5", "1e3", " ", "", "0x10", "５"] {
            #expect(CacheControl("max-age=\(bad)").maxAge == 0, "\(bad)")
        }
        let date = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        let base = ["Date": "Sun, 06 Nov 1994 08:49:37 GMT"]
        for (age, expected) in [
            ("-1000000", 0.0), ("1e9", 0), ("inf", 0), ("nan", 0), ("99999999999999999999", 2_147_483_648),
        ] {
            let read = CacheRules.currentAge(
                base.merging(["Age": age]) { $1 }, requestTime: date, responseTime: date, now: date)
            #expect(read == expected, "Age: \(age)")
        }
    }
}

/// The proxy path shares the cache: a fresh GET stored from the package network is answered to a proxied request,
/// and an `omit` request never touches it.
struct CachingProxyTests {
    /// A proxy the test answers by hand.
    final class ScriptedProxy: RequestProxying, ProxyCancelling {
        let requests = Mutex<[(request: ProxiedRequest, events: @Sendable (ProxyEvent) -> Void)]>([])

        func perform(_ request: ProxiedRequest, events: @escaping @Sendable (ProxyEvent) -> Void)
            -> any ProxyCancelling
        {
            requests.withLock { $0.append((request, events)) }
            return self
        }

        func cancel() {}
        var count: Int { requests.withLock { $0.count } }

        func answer(_ index: Int, _ events: [ProxyEvent]) {
            let sink = requests.withLock { $0[index].events }
            for event in events { sink(event) }
        }
    }

    final class Got: Sendable {
        let events = Mutex<[String]>([])
        func sink(_ event: ProxyEvent) {
            let line =
                switch event {
                case .response(let head): "response \(head.statusCode)"
                case .data(let data): "data " + String(decoding: data, as: UTF8.self)
                case .finished: "finished"
                case .failed(let error): "failed \(error)"
                }
            events.withLock { $0.append(line) }
        }
        var all: [String] { events.withLock { $0 } }
    }

    @Test func theProxySharesTheCacheAndOmitBypassesIt() throws {
        let proxy = ScriptedProxy()
        let cache = HTTPResponseCache(directory: URL.temporaryDirectory.appending(path: "proxy-cache-\(UUID())"))
        let caching = CachingProxy(proxy, cache: cache)
        let url = HTTPResponseCacheTests.url("https://api.example/items?page=1")
        let first = Got()
        _ = caching.perform(ProxiedRequest(url: url), events: first.sink)
        proxy.answer(
            0,
            [
                .response(
                    ProxiedResponseHead(
                        statusCode: 200, reasonPhrase: "OK",
                        headers: [("Cache-Control", "max-age=60"), ("Date", HTTPDate.format(Date()))], url: url,
                        redirected: false)),
                .data(Data("items".utf8)), .finished,
            ])
        #expect(first.all == ["response 200", "data items", "finished"])
        let second = Got()
        _ = caching.perform(ProxiedRequest(url: url, credentials: .include), events: second.sink)
        #expect(second.all == ["response 200", "data items", "finished"])
        #expect(proxy.count == 1)
        // The package network sees the same entry.
        let network = PrefetchAnsweringTests.ScriptedNetwork()
        let received = PrefetchAnsweringTests.Received()
        _ = CachingNetworkFetcher(base: network, cache: cache, cookies: nil).fetch(
            EngineRequest(url: url), followRedirects: true, events: received.sink)
        #expect(network.count == 0)
        #expect(HTTPResponseCacheTests.body(received.all) == "items")
        // No credentials: the network, and the proxy's error comes back whole.
        let omitted = Got()
        _ = caching.perform(ProxiedRequest(url: url, credentials: .omit), events: omitted.sink)
        #expect(proxy.count == 2)
        let failing = Got()
        _ = caching.perform(
            ProxiedRequest(url: HTTPResponseCacheTests.url("https://api.example/other")), events: failing.sink)
        proxy.answer(2, [.failed(.hostNotAllowed("api.example"))])
        #expect(failing.all == ["failed \(ProxyError.hostNotAllowed("api.example"))"])
    }
}
