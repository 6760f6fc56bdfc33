import Foundation
import HybridKit
import HybridKitTesting
import Synchronization
import Testing

@testable import HybridKit

/// The body channel's proxy route without a socket: which heads open a proxy request, that each refusal comes before
/// a byte is read and leaves nothing in the store, that the descriptor reaches the proxy exactly as the scheme's proxy
/// path would hand it over, and that the answer is what the hooks rebuild the page's response from.
@Suite @EngineActor struct BodyChannelProxyRoutesTests {
    static let origin = "hybrid://app.example"
    let routes = BodyChannelRoutes()
    let proxy: ScriptedProxy
    let page: InterceptingSchemeHandler
    let switches = InterceptionSwitches()

    init() {
        proxy = ScriptedProxy([
            .response(
                ProxiedResponseHead(
                    statusCode: 302, reasonPhrase: "Found",
                    headers: [("Location", "/next"), ("Set-Cookie", "a=b"), ("X-Up", "1")],
                    url: Self.url("https://app.example/submit"), redirected: false)),
            .data(Data("moved".utf8)), .finished,
        ])
        page = InterceptingSchemeHandler(
            wrapping: InnerHandler(), switches: switches, proxy: proxy, hop: EngineExecutorHop.immediate,
            config: Self.fullProxy)
        routes.register(page)
        // The view loads one of its pages: its origin is one the channel takes proxy requests from.
        page.start(RecordingTask(EngineRequest(url: Self.url("\(Self.origin)/index.html"), method: "GET")))
    }

    /// Every page of the view is a full-proxy page (the proxy serves no other).
    static let fullProxy = InterceptionConfig(defaultStrategy: .fullProxy)

    static func descriptor(_ fields: [String: Any]) -> String {
        var all: [String: Any] = [
            "url": "hybrid://app.example/submit", "method": "POST", "headers": [["Content-Type", "text/plain"]],
            "firstParty": "hybrid://app.example/index.html",
        ]
        for (name, value) in fields { all[name] = value }
        let json = String(decoding: (try? JSONSerialization.data(withJSONObject: all)) ?? Data(), as: UTF8.self)
        return json.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// A URL the test spells out (a file URL, which no check accepts, if it were mistyped).
    static func url(_ text: String) -> URL { URL(string: text) ?? URL(fileURLWithPath: "/") }

    func request(
        method: String = "POST", path: String = BodyChannelRoutes.proxyPath, origin: String? = Self.origin,
        key: String? = nil, length: Int? = 4, descriptor: String? = Self.descriptor([:])
    ) -> BodyChannelRoutes.Request {
        .init(
            method: method, path: path, origin: origin, key: key ?? page.bodyKey, bodyID: nil, contentLength: length,
            descriptor: descriptor)
    }

    final class Events: Sendable {
        let seen = Mutex<[BodyChannelProxy.Event]>([])
        var all: [BodyChannelProxy.Event] { seen.withLock { $0 } }
        func add(_ event: BodyChannelProxy.Event) { seen.withLock { $0.append(event) } }
    }

    func refusal(_ request: BodyChannelRoutes.Request) -> BodyChannelRefusal? {
        do {
            _ = try routes.openProxy(request) { _ in }
            return nil
        } catch {
            return error
        }
    }

    @Test func aPreflightIsAnsweredOnlyForTheViewsOwnPagesWithTheProxyOn() throws {
        let cors = try #require(routes.preflight(request(method: "OPTIONS", key: "")))
        #expect(cors.contains { $0 == ("Access-Control-Allow-Origin", Self.origin) })
        #expect(cors.contains { $0.0 == "Access-Control-Allow-Headers" && $0.1.contains("x-hybrid-proxy") })
        #expect(routes.preflight(request(method: "OPTIONS", origin: "https://evil.example")) == nil)
        #expect(routes.preflight(request(method: "OPTIONS", origin: "hybrid://other.example")) == nil)
        #expect(routes.preflight(request(method: "OPTIONS", origin: "null")) == nil)
        #expect(routes.preflight(request(method: "OPTIONS", origin: nil)) == nil)
        switches.update { $0.proxyEnabled = false }
        #expect(routes.preflight(request(method: "OPTIONS")) == nil)
        switches.update { $0.proxyEnabled = true }
        // A view without a proxy answers no proxy preflight, whatever pages it served.
        let noProxy = InterceptingSchemeHandler(wrapping: InnerHandler(), hop: EngineExecutorHop.immediate)
        let other = BodyChannelRoutes()
        other.register(noProxy)
        noProxy.start(RecordingTask(EngineRequest(url: URL(string: "\(Self.origin)/")!, method: "GET")))
        #expect(other.preflight(request(method: "OPTIONS")) == nil)
    }

    /// The page a proxy request names as where it comes from decides the `Origin` the proxy sends and the SameSite
    /// and credential rules it applies: a page (or a local process holding its key) cannot name another origin's page,
    /// leave it out, or use the proxy from a page that is not a full-proxy page, whose hooks never send one.
    @Test func proxyRequestsNamingAnotherPageOrFromAPageNotFullProxyAreRefused() throws {
        func isProxyRefusal(_ refusal: BodyChannelRefusal?) -> Bool {
            if case .proxyRefused = refusal { return true }
            return false
        }
        let forged: [Any] = [
            "https://bank.example/account", "hybrid://other.example/index.html", "hybrid://app.example.evil/",
            "", "not a url", NSNull(), 42,
        ]
        for firstParty in forged {
            let refusal = refusal(request(descriptor: Self.descriptor(["firstParty": firstParty])))
            // A number is no descriptor at all (400); every other one is a page the proxy does not act for (403).
            #expect(
                isProxyRefusal(refusal) || (firstParty is Int && refusal?.status == 400),
                "firstParty \(firstParty): \(String(describing: refusal))")
        }
        // Degraded at run time (a remote configuration): the hooks there are off, so is the proxy.
        switches.update { $0.degradedPages = ["\(Self.origin)/"] }
        #expect(isProxyRefusal(refusal(request())))
        switches.update { $0.degradedPages = [] }
        // A view whose pages are body-by-id (the default strategy) takes no proxy request, even with a proxy.
        let byID = InterceptingSchemeHandler(wrapping: InnerHandler(), proxy: proxy, hop: EngineExecutorHop.immediate)
        let other = BodyChannelRoutes()
        other.register(byID)
        byID.start(RecordingTask(EngineRequest(url: Self.url("\(Self.origin)/index.html"), method: "GET")))
        do {
            _ = try other.openProxy(request(key: byID.bodyKey)) { _ in }
            Issue.record("a body-by-id page opened a proxy request")
        } catch {
            #expect(isProxyRefusal(error), "\(error)")
            #expect(error.description.contains("not a full-proxy page"), "\(error)")
        }
        // Nothing went upstream, nothing stayed in a store; and the page's own request still opens.
        #expect(proxy.requests.isEmpty && page.store.count == 0 && byID.store.count == 0)
        #expect(refusal(request()) == nil)
    }

    @Test func proxyHeadsAreRefusedBeforeAnyByteWithTypedErrors() throws {
        let other = InterceptingSchemeHandler(
            wrapping: InnerHandler(), proxy: proxy, hop: EngineExecutorHop.immediate, config: Self.fullProxy)
        routes.register(other)
        #expect(refusal(request(method: "GET")) == .notFound(method: "GET", path: BodyChannelRoutes.proxyPath))
        #expect(refusal(request(path: "/proxy/x")) == .notFound(method: "POST", path: "/proxy/x"))
        #expect(refusal(request(key: "")) == .unknownKey)
        #expect(refusal(request(key: String(page.bodyKey.reversed()))) == .unknownKey)
        // Another view's key: its pages are not this origin's.
        #expect(refusal(request(key: other.bodyKey)) == .wrongOrigin(Self.origin))
        #expect(refusal(request(origin: "https://evil.example")) == .wrongOrigin("https://evil.example"))
        #expect(refusal(request(origin: nil)) == .wrongOrigin(nil))
        #expect(refusal(request(origin: "null")) == .wrongOrigin("null"))
        #expect(refusal(request(length: nil)) == .lengthRequired)
        if case .badDescriptor = refusal(request(descriptor: nil)) {} else { Issue.record("no descriptor opened") }
        if case .badDescriptor = refusal(request(descriptor: "%7Bnot json")) {} else { Issue.record("bad JSON") }
        if case .badDescriptor = refusal(request(descriptor: Self.descriptor(["url": "relative/path"]))) {
        } else {
            Issue.record("a relative URL opened")
        }
        // The body is this request's: a descriptor naming a stored body (another request's, say) is refused.
        let stored = try page.store.begin(
            size: 4, contentType: nil, owner: BodyOwner(origin: Self.origin, scope: ObjectIdentifier(page)))
        if case .badDescriptor = refusal(request(descriptor: Self.descriptor(["bodyID": stored]))) {
        } else {
            Issue.record("a descriptor naming a stored body opened")
        }
        #expect(page.store.count == 1)
        page.store.discard(stored, owner: BodyOwner(origin: Self.origin, scope: ObjectIdentifier(page)))
        // Over the store's limits: refused by its size, before a byte.
        #expect(
            refusal(request(length: page.store.limits.maxBodyBytes + 1))
                == .store(
                    .bodyTooLarge(size: page.store.limits.maxBodyBytes + 1, limit: page.store.limits.maxBodyBytes)))
        switches.update { $0.proxyEnabled = false }
        #expect(refusal(request()) == .proxyUnavailable)
        switches.update { $0.proxyEnabled = true }
        switches.update { $0.hooksEnabled = false }
        #expect(refusal(request()) == .proxyUnavailable)
        switches.update { $0.hooksEnabled = true }
        #expect(page.store.count == 0)
        #expect(proxy.requests.isEmpty)
        #expect(routes.proxiesOpened == 0)
        for refusal in [BodyChannelRefusal.proxyUnavailable, .badDescriptor("x")] {
            #expect(!refusal.description.isEmpty && refusal.status >= 400)
        }
    }

    @Test func theDescriptorReachesTheProxyAsOnTheSchemeAndTheAnswerCarriesItsHead() throws {
        let events = Events()
        let exchange = try routes.openProxy(
            request(
                descriptor: Self.descriptor([
                    "headers": [["Content-Type", "text/plain"], ["Cookie", "forged=1"], ["X-Page", "yes"]],
                    "credentials": "include", "redirect": "manual",
                ]))
        ) { events.add($0) }
        // The scripted proxy answered at once, so the exchange ended and let go of its body: later bytes are
        // refused (the connection reads and drops them).
        #expect(exchange.isEnded)
        var late = exchange.upload
        #expect(throws: BodyChannelRefusal.self) { try late.write(contentsOf: Data("body".utf8)) }
        let sent = try #require(proxy.requests.first)
        // The custom-scheme URL mapped to the https URL it stands for, as the scheme's proxy path maps it.
        #expect(sent.url.absoluteString == "https://app.example/submit")
        #expect(sent.method == "POST")
        // The page's headers go to the proxy as given: the proxy applies the Fetch rules (Cookie dropped) to
        // every request, whichever way it came (HybridNetwork's tests).
        #expect(sent.headers.map(\.name) == ["Content-Type", "Cookie", "X-Page"])
        #expect(sent.credentials == .include && sent.redirect == .manual)
        #expect(sent.firstParty?.absoluteString == "https://app.example/index.html")
        #expect(sent.streamedBody?.count == 4)
        #expect(routes.proxiesOpened == 1)
        // The scripted proxy answered at once: head, body, end, in order.
        let all = events.all
        #expect(all.count == 3)
        guard case .head(let status, let headers) = all.first else {
            Issue.record("\(all)")
            return
        }
        #expect(status == 200)
        #expect(headers.contains { $0 == ("Access-Control-Allow-Origin", Self.origin) })
        let encoded = try #require(headers.first { $0.0 == BodyChannelProxy.headHeader }?.1)
        let decoded = try #require(encoded.removingPercentEncoding)
        let head = try #require(try JSONSerialization.jsonObject(with: Data(decoded.utf8)) as? [String: Any])
        #expect(head["status"] as? Int == 302)
        #expect(head["statusText"] as? String == "Found")
        let pairs = try #require(head["headers"] as? [[String]])
        #expect(pairs.contains(["Location", "/next"]) && pairs.contains(["X-Up", "1"]))
        #expect(!pairs.contains { $0.first?.lowercased() == "set-cookie" })
        #expect(pairs.contains(["X-Hybrid-Final-URL", "hybrid://app.example/submit"]))
        if case .data(let data) = all[1] { #expect(data == Data("moved".utf8)) } else { Issue.record("\(all)") }
        if case .end = all[2] {} else { Issue.record("\(all)") }
        exchange.cancel()
        #expect(page.store.count == 0)
    }

    /// A proxy still sending: the body streams to it as it lands; a cancelled exchange (the connection closed)
    /// drops its body and refuses later bytes.
    @Test func theBodyStreamsToTheProxyAsItLandsAndACancelDropsIt() async throws {
        let silent = ScriptedProxy([])
        let view = InterceptingSchemeHandler(
            wrapping: InnerHandler(), proxy: silent, hop: EngineExecutorHop.immediate, config: Self.fullProxy)
        let routes = BodyChannelRoutes()
        routes.register(view)
        view.start(RecordingTask(EngineRequest(url: URL(string: "\(Self.origin)/")!, method: "GET")))
        let open = BodyChannelRoutes.Request(
            method: "POST", path: BodyChannelRoutes.proxyPath, origin: Self.origin, key: view.bodyKey, bodyID: nil,
            contentLength: 4, descriptor: Self.descriptor([:]))
        let exchange = try routes.openProxy(open) { _ in }
        var upload = exchange.upload
        try upload.write(contentsOf: Data("bo".utf8))
        let streamed = try #require(silent.requests.first?.streamedBody)
        try upload.write(contentsOf: Data("dy".utf8))
        try upload.finish()
        #expect(try await streamed.bytes(at: 0, maxBytes: 10) == Data("body".utf8))
        exchange.cancel()
        #expect(view.store.count == 0)
        let second = try routes.openProxy(open) { _ in }
        second.cancel()
        var late = second.upload
        #expect(throws: BodyChannelRefusal.self) { try late.write(contentsOf: Data("body".utf8)) }
        #expect(view.store.count == 0)
    }

    /// The wire answer promises the engine a length only where the bytes handed over must match it: one plain
    /// decimal `Content-Length`, no encoding, a status and a method whose answer has a body.
    @Test func theWireLengthIsTheUpstreamsOnlyWhereItDescribesTheBytes() {
        func head(_ headers: [(String, String)], status: Int = 200) -> ProxiedResponseHead {
            ProxiedResponseHead(
                statusCode: status, reasonPhrase: "", headers: headers.map { (name: $0.0, value: $0.1) },
                url: URL(string: "https://app.example/")!, redirected: false)
        }
        #expect(BodyChannelProxy.wireLength(of: head([("content-length", "12")]), method: "POST") == 12)
        #expect(BodyChannelProxy.wireLength(of: head([("Content-Length", "0")]), method: "PUT") == 0)
        let none: [(String, ProxiedResponseHead, String)] = [
            ("no length", head([("X-Up", "1")]), "POST"),
            ("a HEAD", head([("Content-Length", "12")]), "HEAD"),
            ("a 204", head([("Content-Length", "12")], status: 204), "POST"),
            ("a 304", head([("Content-Length", "12")], status: 304), "POST"),
            ("a 1xx", head([("Content-Length", "12")], status: 103), "POST"),
            ("encoded", head([("Content-Length", "12"), ("Content-Encoding", "gzip")]), "POST"),
            ("chunked too", head([("Transfer-Encoding", "chunked"), ("Content-Length", "12")]), "POST"),
            ("twice", head([("Content-Length", "12"), ("content-length", "12")]), "POST"),
            ("a list", head([("Content-Length", "12, 12")]), "POST"),
            ("signed", head([("Content-Length", "+12")]), "POST"),
            ("negative", head([("Content-Length", "-1")]), "POST"),
            ("empty", head([("Content-Length", "")]), "POST"),
            ("too long", head([("Content-Length", "99999999999999999999999")]), "POST"),
        ]
        for (what, head, method) in none {
            #expect(BodyChannelProxy.wireLength(of: head, method: method) == nil, "\(what)")
        }
    }

    @Test func aProxyFailureBeforeTheHeadIsAReadableRefusal() throws {
        let failing = ScriptedProxy([.failed(.hostNotAllowed("evil.example"))])
        let view = InterceptingSchemeHandler(
            wrapping: InnerHandler(), proxy: failing, hop: EngineExecutorHop.immediate, config: Self.fullProxy)
        let routes = BodyChannelRoutes()
        routes.register(view)
        view.start(RecordingTask(EngineRequest(url: URL(string: "\(Self.origin)/")!, method: "GET")))
        let events = Events()
        let exchange = try routes.openProxy(
            .init(
                method: "POST", path: BodyChannelRoutes.proxyPath, origin: Self.origin, key: view.bodyKey,
                bodyID: nil, contentLength: 0, descriptor: Self.descriptor([:]))
        ) { events.add($0) }
        let all = events.all
        guard case .head(let status, let headers) = all.first else {
            Issue.record("\(all)")
            return
        }
        #expect(status == 502)
        let encoded = try #require(headers.first { $0.0 == BodyChannelProxy.headHeader }?.1.removingPercentEncoding)
        #expect(encoded.contains("X-Hybrid-Proxy-Error"))
        if case .data(let data) = all[1] {
            #expect(String(decoding: data, as: UTF8.self).contains("evil.example"))
        } else {
            Issue.record("\(all)")
        }
        exchange.cancel()
        #expect(view.store.count == 0)
    }
}
