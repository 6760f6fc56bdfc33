import Foundation
import HybridCookies
import HybridKitTesting
import Synchronization
import Testing

@testable import HybridKit

/// Network pages' prefetch handler without a real engine: who gets an answer (the engine's frame decides, never
/// the message), what a hostile message gets (a typed refusal and nothing else), and the answer itself.
@EngineActor struct PrefetchMessageTests {
    nonisolated static let origin = "https://news.example"
    nonisolated static let page = PrefetchAnsweringTests.url("https://news.example/article?id=7")
    nonisolated static let feed = "https://news.example/api/feed?id=7"

    /// A network-origin prefetcher whose prefetch the test answers by hand, its handler on a fake engine.
    @EngineActor struct Rig {
        let jar: CookieJar
        let engine: FakeEngine
        let holder: PrefetchAnsweringTests.ScriptedHolder
        let prefetcher: FirstScreenPrefetcher
        let answers: PrefetchAnswers
        let handler: PrefetchMessageAnswers

        init(policy: PrefetchPolicy = PrefetchPolicy()) throws {
            let holder = PrefetchAnsweringTests.ScriptedHolder()
            let jar = CookieJar()
            let engine = FakeEngine()
            self.holder = holder
            self.jar = jar
            self.engine = engine
            prefetcher = try FirstScreenPrefetcher(
                networkOrigin: PrefetchMessageTests.origin,
                declarations: PrefetchDeclarations(pages: [
                    PagePrefetch(
                        page: "/article",
                        requests: [PrefetchRequest(url: "/api/feed?id={query.id}", headers: ["X-Client": "news"])])
                ]),
                policy: policy, jar: jar, network: { holder.make($0) })
            answers = PrefetchAnswers(prefetcher: prefetcher)
            engine.verifiesFrames = true
            handler = PrefetchMessageAnswers(answers: answers, engine: engine)
            answers.pageWillOpen(PrefetchMessageTests.page)
        }

        var prefetch: PrefetchAnsweringTests.ScriptedNetwork? { holder.networks.withLock { $0.last } }

        /// The runtime's message for a fetch (fields replaceable for forgeries).
        func fetchText(
            url: String = PrefetchMessageTests.feed, method: String = "GET", credentials: String = "same-origin",
            headers: [[String]] = [["x-client", "news"]], token: String? = nil
        ) -> String {
            let object: [String: Any] = [
                "v": 1, "k": "fetch", "t": token ?? answers.token, "m": method, "u": url, "c": credentials,
                "h": headers,
            ]
            return (try? JSONSerialization.data(withJSONObject: object)).map { String(decoding: $0, as: UTF8.self) }
                ?? ""
        }

        nonisolated static let mainFrame = FrameInfo(
            url: PrefetchMessageTests.page, securityOrigin: PrefetchMessageTests.origin, isMainFrame: true)

        /// Posts `body` as `frame`, returns the reply once settled (nil if never within two seconds).
        func post(_ body: ScriptMessage.Body, frame: FrameInfo? = Rig.mainFrame) async -> [String] {
            let reply = RecordingReply()
            handler.didReceive(
                ScriptMessage(name: PrefetchMessageAnswers.handlerName, body: body, frame: frame), reply: reply)
            let deadline = ContinuousClock.now + .seconds(2)
            while reply.resolved.isEmpty, reply.rejected.isEmpty, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            return reply.resolved + reply.rejected.map { "rejected: \($0)" }
        }

        func answerPrefetch(body: Data, headers: [String: String] = [:]) throws {
            let prefetch = try #require(prefetch)
            prefetch.cookies?.storeSetCookies(
                ["fresh=1; Path=/"], from: PrefetchAnsweringTests.url(PrefetchMessageTests.feed), firstParty: nil)
            prefetch.answer(
                0,
                [
                    .response(
                        SchemeResponse(
                            statusCode: 200,
                            headers: ["Content-Type": "application/octet-stream", "Set-Cookie": "fresh=1; Path=/"]
                                .merging(headers) { $1 })), .data(body), .finished,
                ])
        }
    }

    struct Hit: Decodable {
        var a: String
        var s: Int
        var st: String
        var h: [[String]]
        var u: String
        var r: Bool
        var b: String
        var e: String
        var more: Bool
    }

    static func decode(_ text: String?) throws -> Hit {
        try JSONDecoder().decode(Hit.self, from: Data(try #require(text).utf8))
    }

    static func refused(_ why: PrefetchMessageRefusal) -> [String] {
        [#"{"v":1,"a":"refused","why":"\#(why.rawValue)"}"#]
    }

    @Test func theMainFrameOfTheDeclaredOriginGetsTheWholeResponseOnceWithItsCookiesInTheEngine() async throws {
        let rig = try Rig()
        let bytes = Data((0...255).map { UInt8($0) } + [0xFF, 0xFE, 0x00])
        try rig.answerPrefetch(body: bytes)
        let replies = await rig.post(.string(rig.fetchText()))
        let hit = try Self.decode(replies.first)
        #expect(replies.count == 1)
        #expect(hit.a == "hit" && hit.s == 200 && hit.st == "OK" && hit.u == Self.feed && !hit.r && !hit.more)
        // Bytes that are not UTF-8 travel as base64, exactly.
        #expect(hit.e == "base64")
        #expect(Data(base64Encoded: hit.b) == bytes)
        // Set-Cookie is never shown to the page; its effect is in the jar and the engine's store first.
        #expect(hit.h == [["Content-Type", "application/octet-stream"]])
        #expect(rig.jar.allCookies().map(\.name) == ["fresh"])
        #expect(rig.engine.cookies.all.map(\.name) == ["fresh"])
        // Once: the same message again (a replay) is a miss, and says nothing is left.
        #expect(await rig.post(.string(rig.fetchText())) == [PrefetchMessageAnswers.miss(more: false)])
    }

    @Test func aUTF8BodyTravelsAsTextByteForByte() async throws {
        let rig = try Rig()
        let text = Data("\u{FEFF}{\"é\":\"😀\",\"nul\":\"\\u0000\"}\r\n".utf8)
        try rig.answerPrefetch(body: text)
        let hit = try Self.decode(await rig.post(.string(rig.fetchText())).first)
        #expect(hit.e == "text")
        #expect(Data(hit.b.utf8) == text)
    }

    @Test func aMismatchIsAMissAndLeavesThePrefetchForTheRightRequest() async throws {
        let rig = try Rig()
        try rig.answerPrefetch(body: Data("{}".utf8))
        for text in [
            rig.fetchText(url: Self.feed + "&more=1"), rig.fetchText(method: "HEAD"),
            rig.fetchText(credentials: "include"), rig.fetchText(headers: [["x-client", "other"]]),
            rig.fetchText(headers: [["x-client", "news"], ["authorization", "Bearer x"]]),
        ] {
            #expect(await rig.post(.string(text)) == [PrefetchMessageAnswers.miss(more: true)], "\(text)")
        }
        #expect(try Self.decode(await rig.post(.string(rig.fetchText())).first).a == "hit")
    }

    /// One hostile message per threat-model line (docs: FirstScreenPrefetching, lines 18–19): each gets a typed
    /// refusal, and nothing is taken: the right message still gets the answer afterwards.
    @Test func hostileMessagesGetATypedRefusalAndNothingElse() async throws {
        let rig = try Rig()
        try rig.answerPrefetch(body: Data("{}".utf8))
        let right = rig.fetchText()
        let subframe = FrameInfo(url: Self.page, securityOrigin: Self.origin, isMainFrame: false)
        let otherOrigin = FrameInfo(
            url: PrefetchAnsweringTests.url("https://evil.example/"), securityOrigin: "https://evil.example",
            isMainFrame: true)
        let opaque = FrameInfo(url: Self.page, securityOrigin: "", isMainFrame: true)
        let cases: [(ScriptMessage.Body, FrameInfo?, PrefetchMessageRefusal)] = [
            // Identity is the engine's frame: a message that claims to be the main frame changes nothing.
            (.string(right), nil, .notMainFrame),
            (.string(right), subframe, .notMainFrame),
            (.string(right), otherOrigin, .otherOrigin),
            (.string(right), opaque, .otherOrigin),
            (.string(rig.fetchText(url: "https://evil.example/api/feed?id=7")), Rig.mainFrame, .otherOriginRequest),
            (.string(rig.fetchText(token: "forged")), Rig.mainFrame, .wrongToken),
            // Wrong types and shapes.
            (.other(json: #"{"v":1}"#), Rig.mainFrame, .notAString),
            (.string(#"{"v":"1","k":"fetch"}"#), Rig.mainFrame, .malformed),
            (.string(#"{"v":1,"k":"fetch","t":"x","m":"GET","u":5,"c":"omit","h":[]}"#), Rig.mainFrame, .malformed),
            (.string("[1,2,3]"), Rig.mainFrame, .malformed),
            (.string(rig.fetchText(method: "POST")), Rig.mainFrame, .malformed),
            (.string(rig.fetchText(credentials: "sometimes")), Rig.mainFrame, .malformed),
            (.string(rig.fetchText(headers: [["x-client", "news\r\nCookie: a=b"]])), Rig.mainFrame, .malformed),
            (.string(rig.fetchText(headers: [["x client", "news"]])), Rig.mainFrame, .malformed),
            (.string(rig.fetchText(headers: [["x-client"]])), Rig.mainFrame, .malformed),
            (.string(rig.fetchText(url: "https://user:pw@news.example/api/feed?id=7")), Rig.mainFrame, .malformed),
            (.string(rig.fetchText(url: "file:///etc/passwd")), Rig.mainFrame, .malformed),
            // Huge.
            (.string(String(repeating: "x", count: PrefetchMessage.maximumBytes + 1)), Rig.mainFrame, .tooLarge),
            (
                .string(
                    rig.fetchText(headers: Array(repeating: ["x-a", "1"], count: PrefetchMessage.maximumHeaders + 1))),
                Rig.mainFrame, .malformed
            ),
        ]
        for (body, frame, why) in cases {
            #expect(await rig.post(body, frame: frame) == Self.refused(why), "\(why): \(body)")
        }
        // Without the reply channel there is no one to answer: nothing happens.
        rig.handler.didReceive(
            ScriptMessage(name: PrefetchMessageAnswers.handlerName, body: .string(right), frame: Rig.mainFrame),
            reply: nil)
        #expect(rig.prefetcher.pending(for: Self.page).count == 1)
        #expect(try Self.decode(await rig.post(.string(right)).first).a == "hit")
    }

    @Test func anEngineThatCannotVouchForFramesIsRefusedWithWhatToChange() async throws {
        let rig = try Rig()
        rig.engine.verifiesFrames = false
        let unverified = PrefetchMessageAnswers(answers: rig.answers, engine: rig.engine)
        let reply = RecordingReply()
        unverified.didReceive(
            ScriptMessage(name: PrefetchMessageAnswers.handlerName, body: .string(rig.fetchText()), frame: nil),
            reply: reply)
        #expect(reply.resolved == Self.refused(.unverifiedFrame))
        #expect("\(PrefetchMessageRefusal.unverifiedFrame)".contains("web-process extension"))
    }

    @Test func aFailedPrefetchAfterTheClaimIsAMissThePageFetchesItself() async throws {
        let rig = try Rig()
        let prefetch = try #require(rig.prefetch)
        prefetch.answer(0, [.response(SchemeResponse(statusCode: 200)), .data(Data("ab".utf8))])
        let reply = RecordingReply()
        rig.handler.didReceive(
            ScriptMessage(
                name: PrefetchMessageAnswers.handlerName, body: .string(rig.fetchText()), frame: Rig.mainFrame),
            reply: reply)
        // The claim comes after the engine's cookies were read: the failure must come after it.
        let deadline = ContinuousClock.now + .seconds(2)
        while !rig.prefetcher.pending(for: Self.page).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        prefetch.answer(0, [.failed("reset")])
        while reply.resolved.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(reply.resolved == [PrefetchMessageAnswers.miss(more: false)])
    }

    @Test func thePageReadsWhatWasPrefetchedAndMarksItsFirstScreen() async throws {
        let rig = try Rig()
        let token = rig.answers.token
        let waiting = await rig.post(.string(#"{"v":1,"k":"list","t":"\#(token)"}"#))
        #expect(waiting.first?.contains(#""state":"waiting""#) == true, "\(waiting)")
        #expect(waiting.first?.contains("api\\/feed?id=7") == true, "\(waiting)")
        #expect(await rig.post(.string(#"{"v":1,"k":"first-screen","t":"\#(token)"}"#)) == [#"{"v":1,"a":"ok"}"#])
        #expect(rig.prefetcher.marks(for: Self.page)?.firstScreen != nil)
        // Another frame cannot mark it or read it.
        let subframe = FrameInfo(url: Self.page, securityOrigin: Self.origin, isMainFrame: false)
        #expect(
            await rig.post(.string(#"{"v":1,"k":"list","t":"\#(token)"}"#), frame: subframe)
                == Self.refused(.notMainFrame))
    }

    @Test func theParserReadsTheRuntimesMessage() throws {
        let message = try PrefetchMessage.parse(
            #"{"v":1,"k":"fetch","t":"tok","m":"GET","u":"https://news.example/a?b=1","c":"include","h":[["Accept","*/*"]]}"#
        )
        #expect(message.kind == .fetch && message.token == "tok" && message.credentials == .include)
        #expect(message.request?.url.absoluteString == "https://news.example/a?b=1")
        #expect(message.request?.headers.map { [$0.name, $0.value] } == [["accept", "*/*"]])
        #expect(try PrefetchMessage.parse(#"{"v":1,"k":"list","t":"tok"}"#).kind == .list)
        #expect(throws: PrefetchMessageRefusal.malformed) {
            try PrefetchMessage.parse(#"{"v":1,"k":"list","t":"tok","u":"https://news.example/"}"#)
        }
    }
}
