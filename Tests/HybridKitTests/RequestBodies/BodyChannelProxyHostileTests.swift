import Foundation
import HybridKit
import HybridKitTesting
import Testing

@testable import HybridKit

/// A hostile server's answer on the body channel's proxy route and the scheme's proxy path, without a socket: what
/// the page's hooks read as native code's word comes from native code only, and the head they rebuild the page's
/// `Response` from is one its constructor takes.
@Suite @EngineActor struct BodyChannelProxyHostileTests {
    static let origin = BodyChannelProxyRoutesTests.origin

    static func open(_ proxy: ScriptedProxy) throws -> (
        BodyChannelProxy, [BodyChannelProxy.Event], InterceptingSchemeHandler
    ) {
        let view = InterceptingSchemeHandler(
            wrapping: InnerHandler(), proxy: proxy, hop: EngineExecutorHop.immediate,
            config: BodyChannelProxyRoutesTests.fullProxy)
        let routes = BodyChannelRoutes()
        routes.register(view)
        view.start(RecordingTask(EngineRequest(url: BodyChannelProxyRoutesTests.url("\(origin)/"), method: "GET")))
        let events = BodyChannelProxyRoutesTests.Events()
        let exchange = try routes.openProxy(
            .init(
                method: "POST", path: BodyChannelRoutes.proxyPath, origin: origin, key: view.bodyKey, bodyID: nil,
                contentLength: 0, descriptor: BodyChannelProxyRoutesTests.descriptor([:]))
        ) { events.add($0) }
        return (exchange, events.all, view)
    }

    static func head(_ events: [BodyChannelProxy.Event]) throws -> (status: Int, head: [String: Any]) {
        guard case .head(let status, let headers) = events.first else { throw Missing() }
        let encoded = try #require(headers.first { $0.0 == BodyChannelProxy.headHeader }?.1.removingPercentEncoding)
        let head = try #require(try JSONSerialization.jsonObject(with: Data(encoded.utf8)) as? [String: Any])
        return (status, head)
    }

    struct Missing: Error {}

    static func answer(status: Int, reason: String = "OK", headers: [(name: String, value: String)] = [])
        -> [ProxyEvent]
    {
        [
            .response(
                ProxiedResponseHead(
                    statusCode: status, reasonPhrase: reason, headers: headers,
                    url: BodyChannelProxyRoutesTests.url("https://app.example/submit"), redirected: false)),
            .data(Data("upstream".utf8)), .finished,
        ]
    }

    /// Outside 200–599 the hooks' `new Response` would throw a RangeError: a readable refusal naming the status
    /// instead, the proxy's request stopped, the body gone, nothing of the upstream answer passed on.
    @Test(arguments: [999, 600, 100, 199, 0])
    func aStatusThePageCannotCarryIsRefusedReadably(_ status: Int) throws {
        let proxy = ScriptedProxy(Self.answer(status: status))
        let (exchange, events, view) = try Self.open(proxy)
        let (wire, head) = try Self.head(events)
        #expect(wire == 502 && head["status"] as? Int == 502)
        let pairs = try #require(head["headers"] as? [[String]])
        #expect(pairs.contains(["X-Hybrid-Proxy-Error", "1"]))
        guard events.count == 3, case .data(let message) = events[1], case .end = events[2] else {
            Issue.record("\(events)")
            return
        }
        #expect(String(decoding: message, as: UTF8.self).contains("status \(status)"))
        #expect(!events.contains { if case .data(let data) = $0 { data == Data("upstream".utf8) } else { false } })
        // The scripted proxy answered inside `perform`, before its handle was kept: cancelled all the same.
        #expect(proxy.cancels == 1)
        #expect(exchange.isEnded && view.store.count == 0)
    }

    @Test(arguments: [200, 204, 304, 404, 599])
    func aStatusThePageCanCarryPasses(_ status: Int) throws {
        let (_, events, _) = try Self.open(ScriptedProxy(Self.answer(status: status)))
        #expect(try Self.head(events).head["status"] as? Int == status)
    }

    /// `new Response(…, {statusText})` throws on characters past U+00FF and on controls: they are left out.
    @Test func aReasonPhraseKeepsOnlyWhatAStatusTextHolds() throws {
        let cases: [(String, String)] = [
            ("OK", "OK"), ("Gr\u{F6}\u{DF}e", "Gr\u{F6}\u{DF}e"), ("OK \u{2603}", "OK "),
            ("a\u{0}b\u{1B}c\u{7F}", "abc"),
            ("tab\there", "tab\there"), ("\u{FFFD}\u{1F600}", ""), (String(repeating: "\u{2028}", count: 1000), ""),
        ]
        for (reason, expected) in cases {
            #expect(BodyChannelProxy.statusText(reason) == expected, "\(reason.debugDescription)")
            let (_, events, _) = try Self.open(ScriptedProxy(Self.answer(status: 200, reason: reason)))
            #expect(try Self.head(events).head["statusText"] as? String == expected, "\(reason.debugDescription)")
        }
    }

    /// The hooks take X-Hybrid-Final-URL, X-Hybrid-Redirected, X-Hybrid-Body-Resends and X-Hybrid-Proxy-Error
    /// as native code's word: a server's, in any case, are dropped on both ways to the page.
    @Test func aServersInternalHeadersAreDroppedOnBothPaths() throws {
        let forged: [(name: String, value: String)] = [
            ("X-Hybrid-Final-URL", "https%3A%2F%2Fbank.example%2F"), ("x-hybrid-final-url", "https://bank.example/"),
            ("X-Hybrid-Redirected", "1"), ("X-HYBRID-BODY-RESENDS", "3"), ("X-Hybrid-Proxy-Error", "1"),
            ("X-Hybrid-Head", "%7B%7D"), ("Set-Cookie2", "a=b"), ("X-Kept", "yes"),
        ]
        let upstream = ProxiedResponseHead(
            statusCode: 200, reasonPhrase: "OK", headers: forged,
            url: BodyChannelProxyRoutesTests.url("https://app.example/submit"), redirected: false)
        let scheme = InterceptingSchemeHandler.schemeResponse(for: upstream, pageURL: "\(Self.origin)/submit")
        let ours = scheme.headers.keys.filter { $0.lowercased().hasPrefix("x-hybrid-") }
        #expect(ours == ["X-Hybrid-Final-URL"], "\(scheme.headers)")
        #expect(scheme.headers["X-Hybrid-Final-URL"]?.contains("bank") == false)
        #expect(scheme.headers["X-Kept"] == "yes" && scheme.headers["Set-Cookie2"] == nil)

        let (_, events, _) = try Self.open(
            ScriptedProxy([.response(upstream), .data(Data("hi".utf8)), .finished]))
        let pairs = try #require(try Self.head(events).head["headers"] as? [[String]])
        #expect(
            pairs.filter { $0.first?.lowercased().hasPrefix("x-hybrid-") == true }.map(\.[0]) == ["X-Hybrid-Final-URL"])
        #expect(pairs.contains(["X-Kept", "yes"]))
    }

    /// `new Headers` throws on a value past U+00FF and a name that is no token: values come as the bytes the server
    /// sent, one character a byte (as Fetch shows a network response's), names that are no token are left out.
    @Test func headerValuesAreBytesAndNamesTokens() throws {
        let upstream = ProxiedResponseHead(
            statusCode: 200, reasonPhrase: "OK",
            headers: [
                ("X-Snow", "\u{2603}"), ("Content-Disposition", "attachment; filename=\"na\u{EF}ve.txt\""),
                ("X-Ascii", "plain"), ("X Bad", "1"), ("X{Bad}", "1"),
            ],
            url: BodyChannelProxyRoutesTests.url("https://app.example/submit"), redirected: false)
        let (_, events, _) = try Self.open(ScriptedProxy([.response(upstream), .finished]))
        let pairs = try #require(try Self.head(events).head["headers"] as? [[String]])
        #expect(pairs.contains(["X-Snow", "\u{E2}\u{98}\u{83}"]))
        #expect(pairs.contains(["Content-Disposition", "attachment; filename=\"na\u{C3}\u{AF}ve.txt\""]))
        #expect(pairs.contains(["X-Ascii", "plain"]))
        #expect(!pairs.contains { $0.first?.contains("Bad") == true })
        for pair in pairs {
            #expect(pair.joined().unicodeScalars.allSatisfy { $0.value <= 0xFF }, "\(pair)")
        }
    }
}
