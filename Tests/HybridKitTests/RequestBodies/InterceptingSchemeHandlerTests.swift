import Foundation
import HybridKit
import HybridKitTesting
import Synchronization
import Testing

@testable import HybridKit

@Suite @EngineActor struct InterceptingSchemeHandlerTests {
    let inner = InnerHandler()

    func handler(proxy: (any RequestProxying)? = nil, limits: BodyStoreLimits = BodyStoreLimits())
        -> InterceptingSchemeHandler
    {
        InterceptingSchemeHandler(
            wrapping: inner, store: BodyStore(limits: limits), proxy: proxy, hop: EngineExecutorHop.immediate,
            config: InterceptionConfig(defaultStrategy: .fullProxy))
    }

    func post(_ url: String, body: Data? = nil, headers: [(name: String, value: String)] = []) throws -> RecordingTask {
        RecordingTask(EngineRequest(url: try #require(URL(string: url)), method: "POST", headers: headers, body: body))
    }

    /// Uploads `data` in one chunk and returns its id.
    func upload(
        _ data: Data, type: String? = nil, to handler: InterceptingSchemeHandler, origin: String = "hybrid://a.test"
    )
        throws -> String
    {
        let task = try post(
            "\(origin)/__hybrid__/body?size=\(data.count)", body: data,
            headers: type.map { [("X-Hybrid-Content-Type", $0)] } ?? [])
        handler.start(task)
        return try #require(task.json?["id"] as? String)
    }

    @Test func onlyKeyedBodiesAreReadAndTheKeyNeverReachesTheInnerHandler() throws {
        let handler = handler()
        let key = handler.bodyKey
        func request(_ url: String, _ headers: [(name: String, value: String)]) throws -> EngineRequest {
            EngineRequest(url: try #require(URL(string: url)), method: "POST", headers: headers)
        }
        #expect(handler.mayReadBody(of: try request("hybrid://a.test/api", [("X-Hybrid-Body-Key", key)])))
        #expect(!handler.mayReadBody(of: try request("hybrid://a.test/api", [])), "a Worker's body, say")
        // One character off (never the same character, or the "wrong" key would be the key one time in sixteen).
        let wrongKey = (key.first == "0" ? "1" : "0") + key.dropFirst()
        #expect(!handler.mayReadBody(of: try request("hybrid://a.test/api", [("X-Hybrid-Body-Key", wrongKey)])))
        #expect(!handler.mayReadBody(of: try request("hybrid://a.test/__hybrid__/body?size=1", [])))
        #expect(!handler.mayReadBody(of: try request("hybrid://a.test/api", [("X-Hybrid-Body", "id")])), "stored body")
        #expect(
            InterceptingSchemeHandler(wrapping: inner, hop: EngineExecutorHop.immediate).bodyKey != key,
            "one key per handler")

        // A withheld body is refused without reaching the inner handler; a keyed one goes on without the key.
        var withheld = try request("hybrid://a.test/api", [])
        withheld.bodyWithheld = true
        let refused = RecordingTask(withheld)
        handler.start(refused)
        #expect(refused.error?.description.contains("not read") == true)
        #expect(inner.requests.isEmpty)
        let keyed = try post("hybrid://a.test/api", body: Data("a=1".utf8), headers: [("X-Hybrid-Body-Key", key)])
        handler.start(keyed)
        let seen = try #require(inner.requests.last)
        #expect(seen.body == Data("a=1".utf8))
        #expect(seen.header("X-Hybrid-Body-Key") == nil)
        #expect(keyed.finished)

        // Uploads to the reserved paths need the key too.
        var upload = try request("hybrid://a.test/__hybrid__/body?size=1", [])
        upload.bodyWithheld = true
        let refusedUpload = RecordingTask(upload)
        handler.start(refusedUpload)
        #expect(refusedUpload.head?.statusCode == 403)
        #expect(handler.store.count == 0)
    }

    @Test func reattachesTheStoredBodyAndStripsTheTag() throws {
        let handler = handler()
        let bytes = Data((0..<300).map { UInt8($0 % 256) })
        let id = try upload(bytes, type: "multipart/form-data; boundary=x", to: handler)
        let task = try post(
            "hybrid://a.test/api", headers: [("X-Hybrid-Body", id), ("Content-Type", "text/plain"), ("X-Keep", "1")])
        handler.start(task)
        let seen = try #require(inner.requests.last)
        #expect(seen.body == bytes)
        #expect(seen.header("X-Hybrid-Body") == nil)
        #expect(seen.header("X-Keep") == "1")
        #expect(seen.header("Content-Type") == "multipart/form-data; boundary=x")
        #expect(task.finished && task.body == Data("inner".utf8))
        #expect(handler.store.count == 0)
    }

    @Test func theRedirectModeReachesTheInnerHandlerAndFollowedRedirectsReachThePage() throws {
        let inner = RedirectingInner()
        let handler = InterceptingSchemeHandler(wrapping: inner, hop: EngineExecutorHop.immediate)
        let id = try upload(Data("x".utf8), to: handler)
        let task = try post("hybrid://a.test/api", headers: [("X-Hybrid-Body", id), ("X-Hybrid-Redirect", "manual")])
        handler.start(task)
        #expect(inner.modes == [.manual])
        #expect(inner.seen?.header("X-Hybrid-Redirect") == nil, "the mode is for native code, not the server")
        let head = try #require(task.head)
        // Percent-encoded once more for the header; the hooks' decodeURIComponent gives the URL back.
        #expect(head.headers["X-Hybrid-Final-URL"] == "hybrid://a.test/final?q=%25C3%25BC")
        #expect(head.headers["X-Hybrid-Redirected"] == "1")
        #expect(head.headers["X-Hybrid-Body-Resends"] == "1")

        let plain = try upload(Data("y".utf8), to: handler)
        handler.start(try post("hybrid://a.test/api", headers: [("X-Hybrid-Body", plain)]))
        #expect(inner.modes == [.manual, .follow], "no header: follow, as fetch's default")
    }

    @Test func aBodyTagInTheQueryIsRemovedFromTheURL() throws {
        let handler = handler()
        let id = try upload(Data("x".utf8), to: handler)
        handler.start(try post("hybrid://a.test/form?a=1&__hybrid_body=\(id)"))
        #expect(inner.requests.last?.url.absoluteString == "hybrid://a.test/form?a=1")
        #expect(inner.requests.last?.body == Data("x".utf8))
    }

    /// The rest of the query goes on byte for byte: decoded and encoded again, `%2B` would reach the server as `+`
    /// (a space once read) and `%20` could change too. A look-alike item, or the name percent-encoded, is no tag.
    @Test func theQueryAroundABodyTagIsKeptAsWritten() throws {
        let handler = handler()
        let id = try upload(Data("x".utf8), to: handler)
        let query = "tag=c%2B%2B&&q=a%20b+c&__hybrid_bodyguard=1&__hybrid%5Fbody=no"
        handler.start(try post("hybrid://a.test/form?\(query)&__hybrid_body=\(id)&z=%7E"))
        #expect(inner.requests.last?.url.absoluteString == "hybrid://a.test/form?\(query)&z=%7E")
        #expect(inner.requests.last?.body == Data("x".utf8))
    }

    @Test func anotherOriginsForgedOrSpentIDsAreRefused() throws {
        let handler = handler()
        let id = try upload(Data("secret".utf8), to: handler)
        let foreign = try post("hybrid://evil.test/api", headers: [("X-Hybrid-Body", id)])
        handler.start(foreign)
        #expect(foreign.error != nil)
        let wrongOrigin = try post(
            "hybrid://a.test/api", headers: [("X-Hybrid-Body", id), ("Origin", "hybrid://evil.test")])
        handler.start(wrongOrigin)
        #expect(wrongOrigin.error != nil)
        let forged = try post("hybrid://a.test/api", headers: [("X-Hybrid-Body", BodyStore.randomID())])
        handler.start(forged)
        #expect(forged.error != nil)
        #expect(inner.requests.isEmpty)
        // The rightful request still gets it, once.
        handler.start(try post("hybrid://a.test/api", headers: [("X-Hybrid-Body", id)]))
        #expect(inner.requests.last?.body == Data("secret".utf8))
        let again = try post("hybrid://a.test/api", headers: [("X-Hybrid-Body", id)])
        handler.start(again)
        #expect(again.error != nil)
    }

    @Test func aHugeBodyIsRefusedFromItsAnnouncedSize() throws {
        let handler = handler(limits: BodyStoreLimits(maxBodyBytes: 64 << 20))
        let task = try post("hybrid://a.test/__hybrid__/body?size=\(200 << 20)", body: Data(count: 1024))
        handler.start(task)
        #expect(task.head?.statusCode == 413)
        #expect((task.json?["error"] as? String)?.contains("limit") == true)
        #expect(handler.store.count == 0)
    }

    @Test func uploadsFromAnotherOriginAreRefused() throws {
        let handler = handler()
        let task = try post(
            "hybrid://a.test/__hybrid__/body?size=1", body: Data([1]), headers: [("Origin", "hybrid://evil.test")])
        handler.start(task)
        #expect(task.head?.statusCode == 403)
        #expect(handler.store.count == 0)
    }

    @Test func fullProxyTranslatesTheRequestAndStreamsTheResponse() throws {
        let final = try #require(URL(string: "https://a.test/final"))
        let proxy = ScriptedProxy([
            .response(
                ProxiedResponseHead(
                    statusCode: 201, reasonPhrase: "Made It",
                    headers: [("X-A", "1"), ("x-a", "2"), ("Set-Cookie", "s=1")],
                    url: final, redirected: true)),
            .data(Data("hello ".utf8)), .data(Data("world".utf8)), .finished,
        ])
        let handler = handler(proxy: proxy)
        let id = try upload(Data("body".utf8), to: handler)
        let descriptor =
            #"{"url":"hybrid://a.test/api?q=1","method":"PUT","headers":[["X-Test","t"],["Content-Type","text/x"]],"bodyID":"\#(id)","credentials":"include","redirect":"follow","firstParty":"hybrid://a.test/page.html"}"#
        let task = try post(
            "hybrid://a.test/__hybrid__/proxy",
            headers: [("X-Hybrid-Proxy", descriptor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")]
        )
        handler.start(task)
        let sent = try #require(proxy.requests.first)
        #expect(sent.url.absoluteString == "https://a.test/api?q=1")
        #expect(sent.method == "PUT")
        #expect(sent.body == Data("body".utf8))
        #expect(sent.credentials == .include)
        #expect(sent.firstParty?.absoluteString == "https://a.test/page.html")
        #expect(sent.headers.map(\.name) == ["X-Test", "Content-Type"])
        let head = try #require(task.head)
        #expect(head.statusCode == 201 && head.reasonPhrase == "Made It")
        #expect(head.headers["X-A"] == "1, 2")
        #expect(head.headers["Set-Cookie"] == nil)
        #expect(head.headers["X-Hybrid-Final-URL"] == "hybrid://a.test/final")
        #expect(head.headers["X-Hybrid-Redirected"] == "1")
        #expect(task.body == Data("hello world".utf8) && task.finished)
        #expect(handler.proxiedCount == 0 && handler.store.count == 0)
    }

    /// On the scheme's proxy path too: a proxy request naming another origin's page (or none) as where it comes
    /// from, or sent by a page that is not a full-proxy page, is refused before the proxy sees it, with a 403 that
    /// says why.
    @Test func proxyRequestsNamingAnotherPageOrFromAPageNotFullProxyAreRefused() throws {
        let proxy = ScriptedProxy([.finished])
        func ask(_ handler: InterceptingSchemeHandler, firstParty: String?) throws -> RecordingTask {
            let named = firstParty.map { #","firstParty":"\#($0)""# } ?? ""
            let descriptor = #"{"url":"https://a.test/transfer","method":"POST","headers":[]\#(named)}"#
            let task = try post(
                "hybrid://a.test/__hybrid__/proxy", body: Data("x".utf8),
                headers: [
                    ("X-Hybrid-Proxy", descriptor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                    ("X-Hybrid-Body-Key", handler.bodyKey), ("Origin", "hybrid://a.test"),
                ])
            handler.start(task)
            return task
        }
        let fullProxy = handler(proxy: proxy)
        for firstParty in ["https://bank.example/", "hybrid://b.test/page.html", "javascript:1", nil] {
            let task = try ask(fullProxy, firstParty: firstParty)
            #expect(task.head?.statusCode == 403, "\(String(describing: firstParty))")
            #expect((task.json?["error"] as? String)?.contains("firstParty") == true)
        }
        let byID = InterceptingSchemeHandler(wrapping: inner, proxy: proxy, hop: EngineExecutorHop.immediate)
        let refused = try ask(byID, firstParty: "hybrid://a.test/page.html")
        #expect(refused.head?.statusCode == 403)
        #expect((refused.json?["error"] as? String)?.contains("not a full-proxy page") == true)
        #expect(proxy.requests.isEmpty)
        // The hooks' own request, from a full-proxy page of its origin, goes through.
        let allowed = try ask(fullProxy, firstParty: "hybrid://a.test/page.html")
        #expect(allowed.head?.statusCode != 403 && proxy.requests.count == 1)
    }

    @Test func aProxyRefusalReachesThePageAsAReadableError() throws {
        let proxy = ScriptedProxy([.failed(.addressNotAllowed(host: "intranet.test", address: "10.0.0.1"))])
        let handler = handler(proxy: proxy)
        let descriptor = #"{"url":"http://intranet.test/","method":"GET","headers":[],"firstParty":"hybrid://a.test/"}"#
        let task = try post(
            "hybrid://a.test/__hybrid__/proxy",
            headers: [("X-Hybrid-Proxy", descriptor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")]
        )
        handler.start(task)
        #expect(task.head?.statusCode == 502)
        #expect(task.head?.headers["X-Hybrid-Proxy-Error"] == "1")
        let message = task.json?["error"] as? String ?? ""
        #expect(message.contains("intranet.test") && message.contains("private"), "\(message)")
        // Where the name led stays in the app's log: a page could map an intranet through a wildcard host.
        #expect(!message.contains("10.0.0.1"), "\(message)")
    }

    @Test func withoutAProxyOrWhenSwitchedOffTheProxyPathRefuses() throws {
        let task = try post("hybrid://a.test/__hybrid__/proxy", headers: [("X-Hybrid-Proxy", "%7B%7D")])
        handler().start(task)
        #expect(task.head?.statusCode == 403)
        let switchedOff = handler(proxy: ScriptedProxy([]))
        switchedOff.switches.hooksEnabled = false
        let upload = try post("hybrid://a.test/__hybrid__/body?size=1", body: Data([1]))
        switchedOff.start(upload)
        #expect(upload.head?.statusCode == 403)
    }

    @Test func configPicksTheLongestPrefixAndHonoursTheDegradeList() {
        let config = InterceptionConfig(
            defaultStrategy: .off,
            rules: [
                .init(prefix: "hybrid://a.test/", strategy: .bodyByID),
                .init(prefix: "hybrid://a.test/pay/", strategy: .fullProxy),
            ],
            degraded: ["hybrid://a.test/pay/legacy"])
        #expect(config.strategy(for: "hybrid://a.test/x") == .bodyByID)
        #expect(config.strategy(for: "hybrid://a.test/pay/x") == .fullProxy)
        #expect(config.strategy(for: "hybrid://a.test/pay/legacy/x") == .off)
        #expect(config.strategy(for: "hybrid://b.test/") == .off)
    }

    @Test func theHookScriptCarriesTheConfig() throws {
        let config = InterceptionConfig(rules: [.init(prefix: "hybrid://a.test/</script>", strategy: .fullProxy)])
        let switches = InterceptionSwitches()
        let key = "0123456789abcdef0123456789abcdef"
        let source = try RequestHooksScript.source(
            config: config, schemes: ["HYBRID"], switches: switches, bodyKey: key)
        // One closure over the joined hook files, called with the config (whose key order may differ between runs).
        let call = "install(window, null);\n})("
        #expect(source.hasPrefix("(function (config) {\n"))
        #expect(source.hasSuffix(");\n"))
        let argument = try #require(source.range(of: call, options: .backwards)).upperBound
        let passed = try JSONSerialization.jsonObject(with: Data(source[argument...].dropLast(3).utf8)) as? NSDictionary
        let json = try RequestHooksScript.configJSON(config, ["HYBRID"], switches, bodyKey: key)
        #expect(passed == (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary))
        #expect(source.contains(#""bodyKey":"0123456789abcdef0123456789abcdef""#))
        #expect(source.contains(#""schemes":["hybrid"]"#))
        #expect(!source.contains("</script>"))
    }
}

/// An inner handler that reports the redirect mode it was given and answers as if it followed a 307.
final class RedirectingInner: SchemeHandler {
    private let state = Mutex<(modes: [ProxiedRequest.RedirectMode], seen: EngineRequest?)>(([], nil))
    var modes: [ProxiedRequest.RedirectMode] { state.withLock { $0.modes } }
    var seen: EngineRequest? { state.withLock { $0.seen } }

    func start(_ task: any SchemeTask) {
        let mode = (task as? AttachedBodyTask)?.redirectMode
        state.withLock {
            if let mode { $0.modes.append(mode) }
            $0.seen = task.request
        }
        let final = URL(string: "hybrid://a.test/final?q=%C3%BC") ?? task.request.url
        task.respond(SchemeResponse(statusCode: 200, redirection: .init(url: final, bodyResends: 1)))
        task.finish()
    }

    func stop(_ task: any SchemeTask) {}
}
