#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Testing

/// First-screen prefetch for network pages in real WebKitGTK: the page's own `fetch` answered from the prefetch
/// through the engine-stamped script message, exactly as the network would have answered it, and only the main
/// frame of the declared origin's. Takes the engine's shared cookie store alone: its jars follow that store, and
/// cookies ignore ports, so another suite's cookies for 127.0.0.1 would change what the jar sends after the prefetch
/// went out (rightly a miss).
@Suite(.serialized, .engineCookieStoreExclusive) struct NetworkPrefetchGTKTests {
    struct Described: Codable, Equatable {
        var status: Int
        var statusText: String
        var ok: Bool
        var headers: [[String]]
        var body: String
        var url: String
        var redirected: Bool
        var type: String
        var cookie: String
        var echo: String
    }

    static func described(_ text: String) throws -> Described {
        try JSONDecoder().decode(Described.self, from: Data(text.utf8))
    }

    @Test @GTKActor func aNetworkPageGetsItsDataFromThePrefetchExactlyAsWithout() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let with = try Self.described(
            try await fixture.open("/page?user=u1&mode=plain", with: try fixture.prefetcher()))
        // The server saw one API request, the prefetch's (with the declared header and the jar's cookie).
        #expect(fixture.requests("GET /api/feed") == ["GET /api/feed?user=u1"])
        let without = try Self.described(try await fixture.open("/page?user=u1&mode=plain", with: nil))
        #expect(fixture.requests("GET /api/feed") == ["GET /api/feed?user=u1", "GET /api/feed?user=u1"])
        // Byte for byte, with the same headers (Set-Cookie hidden in both), URL, type, and cookie effects: the
        // page's document.cookie shows the new cookie as soon as the Response is in, and the engine sends the
        // HttpOnly one on its next request.
        #expect(with == without)
        #expect(with.status == 200 && with.statusText == "OK" && with.type == "basic" && !with.redirected)
        #expect(with.url == (try fixture.url("/api/feed?user=u1").absoluteString))
        #expect(with.headers.contains(["x-feed", "client=news fr"]))
        #expect(!with.headers.contains { $0.first == "set-cookie" })
        #expect(with.cookie == "np_seen=u1; np_sid=s1")
        #expect(with.echo == "np_hid=u1; np_seen=u1; np_sid=s1")
        #expect(String(decoding: Data(base64Encoded: with.body) ?? Data(), as: UTF8.self).contains("np_sid=s1"))
    }

    @Test @GTKActor func binaryBytesArriveExactly() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let with = try Self.described(try await fixture.open("/page?user=u1&mode=bin", with: try fixture.prefetcher()))
        #expect(fixture.requests("GET /api/bin") == ["GET /api/bin?"])
        #expect(Data(base64Encoded: with.body) == Data(Array(0...255) + [0xFF, 0xFE, 0x00, 0xC3]))
        let without = try Self.described(try await fixture.open("/page?user=u1&mode=bin", with: nil))
        #expect(with == without)
    }

    @Test @GTKActor func aMismatchGoesToTheServer() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let prefetcher = try fixture.prefetcher()
        for mode in ["query", "post", "include", "omit"] {
            let text = try await fixture.open("/page?user=u1&mode=\(mode)", with: prefetcher)
            #expect(try Self.described(text).status == 200, "\(mode): \(text)")
        }
        // Each open prefetched once (u1) and the page's own request went to the server.
        #expect(
            fixture.requests("GET /api/feed") == [
                "GET /api/feed?user=u1", "GET /api/feed?user=u2", "GET /api/feed?user=u1", "GET /api/feed?user=u1",
                "GET /api/feed?user=u1", "GET /api/feed?user=u1", "GET /api/feed?user=u1",
            ])
        #expect(fixture.requests("POST /api/feed") == ["POST /api/feed?user=u1"])
    }

    @Test @GTKActor func framesNeverGetAnAnswer() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let text = try await fixture.open(
            "/page?user=u1&mode=frames&other=\(fixture.other.origin)", with: try fixture.prefetcher())
        struct Reply: Codable, Equatable {
            var a: String
            var why: String
        }
        struct Report: Codable {
            var from: String
            var status: Int?
            var reply: Reply?
        }
        let reports = try #require(try? JSONDecoder().decode([Report].self, from: Data(text.utf8)), "\(text)")
        #expect(reports.map(\.from) == ["other", "same"], "\(text)")
        // Posts from frames, same origin or not, are refused by what the engine says of them.
        let refused = Reply(a: "refused", why: "not_main_frame")
        #expect(reports.map(\.reply) == [refused, refused], "\(text)")
        // The same-origin frame's request went to the server: the prefetch plus the frame's own.
        #expect(reports.last?.status == 200)
        #expect(fixture.requests("GET /api/feed") == ["GET /api/feed?user=u1", "GET /api/feed?user=u1"])
    }

    @Test @GTKActor func aPageOfAnotherOriginNeverGetsTheAnswer() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let prefetcher = try fixture.prefetcher()
        let container = try fixture.container(prefetcher)
        defer { container.close() }
        // The declared page prefetches; the view then shows another origin's page, which fetches the same path
        // (its own server answers) and posts to the handler around the runtime (refused).
        fixture.jar.setCookie("np_sid=s1; Path=/", for: .http(try fixture.url("/")))
        prefetcher.prefetch(for: try fixture.url("/page?user=u1&mode=plain"))
        let other = try #require(URL(string: fixture.other.origin + "/page?user=u1&mode=forged"))
        try await container.loadAndWait(other)
        let forged = try await NetworkPrefetchFixture.result(container.engine)
        #expect(forged.contains(#""why":"not_main_frame""#), "\(forged)")
        #expect(forged.contains("other origin") || forged.contains("b3RoZXIgb3JpZ2lu"), "\(forged)")
        #expect(fixture.requests("GET /api/feed") == ["GET /api/feed?user=u1"])
        // The declared page, opened next in the same view, still gets the prefetch: nothing was taken.
        let text = try await fixture.open("/page?user=u1&mode=plain", in: container)
        #expect(try Self.described(text).status == 200)
        #expect(fixture.requests("GET /api/feed") == ["GET /api/feed?user=u1"])
    }

    @Test @GTKActor func aPageThatReplacedItsBuiltInsGetsTheRightAnswerOrTheNetwork() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        struct Got: Codable, Equatable {
            var status: Int
            var body: String
            var url: String
            var type: String
            var feed: String?
        }
        for then in ["plain", "bin"] {
            let text = try await fixture.open(
                "/page?user=u1&mode=replaced&then=\(then)", with: try fixture.prefetcher())
            let got = try JSONDecoder().decode(Got.self, from: Data(text.utf8))
            #expect(got.status == 200 && got.type == "basic", "\(text)")
            if then == "plain" {
                #expect(got.url == (try fixture.url("/api/feed?user=u1").absoluteString))
                #expect(got.feed == "client=news fr")
                #expect(String(decoding: Data(base64Encoded: got.body) ?? Data(), as: UTF8.self).contains("for u1"))
            } else {
                #expect(Data(base64Encoded: got.body) == Data(Array(0...255) + [0xFF, 0xFE, 0x00, 0xC3]))
            }
        }
        // Answered from the prefetches: one request each reached the server, none forged (u2) or doubled.
        #expect(fixture.requests("GET /api/feed") == ["GET /api/feed?user=u1", "GET /api/feed?user=u1"])
        #expect(fixture.requests("GET /api/bin") == ["GET /api/bin?", "GET /api/bin?"])
    }

    @Test @GTKActor func aFailedOrSlowPrefetchChangesNothingButTime() async throws {
        let fixture = try await NetworkPrefetchFixture()
        defer { fixture.close() }
        let failing = try fixture.prefetcher(network: { _ in FailingNetwork() })
        let failed = try Self.described(try await fixture.open("/page?user=u1&mode=plain", with: failing))
        let plain = try Self.described(try await fixture.open("/page?user=u1&mode=plain", with: nil))
        #expect(failed == plain)
        #expect(fixture.requests("GET /api/feed").count == 2)
        // The slow prefetch hangs 8 s; the page waits at most the claim wait, then fetches itself.
        let slow = try fixture.prefetcher(
            policy: PrefetchPolicy(claimWait: .milliseconds(300), allowsPrivateAddresses: true))
        let start = ContinuousClock.now
        let text = try await fixture.open("/slow?mode=slow", with: slow)
        #expect(ContinuousClock.now - start < .seconds(6))
        #expect(text.contains("c2xvdyBhbnN3ZXI="), "\(text)")  // "slow answer"
        #expect(fixture.requests("GET /api/slow") == ["GET /api/slow?", "GET /api/slow?"])
    }
}
#endif
