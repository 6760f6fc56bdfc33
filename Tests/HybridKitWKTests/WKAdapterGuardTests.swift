#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit
import Testing
@testable import HybridKitWK
@testable import WebKitStandIn

/// HybridKitWK's guards, run against the stand-in's rules: each would otherwise end the process.
@Suite(.serialized) @MainActor struct WKAdapterGuardTests {
    final class Handler: SchemeHandler {
        var started: [any SchemeTask] = []
        var stopped = 0
        func start(_ task: any SchemeTask) { started.append(task) }
        func stop(_ task: any SchemeTask) { stopped += 1 }
        nonisolated func mayReadBody(of request: EngineRequest) -> Bool { true }
    }

    @Test func outOfOrderSchemeTaskCallsBecomeViolationsNotTraps() async throws {
        let port = RecordingPortTask()
        let adapter = WKSchemeTaskAdapter(task: makeStandInTask(port), handler: Handler()) {}
        adapter.send(Data("early".utf8))
        adapter.respond(SchemeResponse(statusCode: 200))
        adapter.respond(SchemeResponse(statusCode: 500))
        adapter.send(Data("ok".utf8))
        adapter.finish()
        adapter.finish()
        adapter.send(Data("late".utf8))
        #expect(adapter.violations == [.dataBeforeResponse, .secondResponse, .afterEnd(.finish), .afterEnd(.send)])
        #expect(try await waitUntil { port.calls == ["respond 200", "send 2", "finish"] })
    }

    @Test func finishWithoutAResponseFailsTheRequest() async throws {
        let port = RecordingPortTask()
        let adapter = WKSchemeTaskAdapter(task: makeStandInTask(port), handler: Handler()) {}
        adapter.finish()
        #expect(adapter.violations == [.finishWithoutResponse])
        #expect(try await waitUntil { port.calls == ["fail"] })
    }

    @Test func nothingReachesAStoppedTask() {
        let task = makeStandInTask()
        let adapter = WKSchemeTaskAdapter(task: task, handler: Handler()) {}
        adapter.respond(SchemeResponse(statusCode: 200))
        task.markStopped()
        #expect(adapter.markStopped())
        adapter.send(Data("x".utf8))
        adapter.finish()
        adapter.fail(.failed("late"))
        #expect(adapter.violations == [.afterStop(.send), .afterStop(.finish), .afterStop(.fail)])
    }

    @Test func finishedTasksAreReleased() async throws {
        let bridge = SchemeHandlerBridge()
        let handler = Handler()
        bridge.handler = handler
        let view = WKWebView(frame: .zero, configuration: WKWebViewConfiguration())
        for _ in 0..<3 { bridge.webView(view, start: makeStandInTask()) }
        #expect(bridge.openTaskCount == 3)
        handler.started[0].respond(status: 200, body: Data("a".utf8))
        handler.started[1].fail(.notFound("b"))
        #expect(bridge.openTaskCount == 1)
        bridge.stopAll()
        #expect(bridge.openTaskCount == 0)
        #expect(handler.stopped == 1)
    }

    @Test func bodiesComeFromTheStreamAndOnlyWhenTheHandlerAllows() throws {
        var request = URLRequest(url: URL(fileURLWithPath: "/"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("streamed".utf8))
        // The stream is handed back unread: the bridge reads it off the main thread.
        let read = WKSchemeTaskAdapter.engineRequest(request, mayReadBody: { _ in true })
        #expect(read.request.body == nil)
        #expect(!read.request.bodyWithheld)
        let stream = try #require(read.bodyStream)
        #expect(WKSchemeTaskAdapter.readAll(stream, limit: 8) == Data("streamed".utf8))
        // One byte over the handler's limit is not read on: the adapter fails the task instead.
        #expect(WKSchemeTaskAdapter.readAll(InputStream(data: Data("streamed!".utf8)), limit: 8) == nil)

        request.httpBodyStream = InputStream(data: Data("secret".utf8))
        let withheld = WKSchemeTaskAdapter.engineRequest(request, mayReadBody: { _ in false })
        #expect(withheld.request.body == nil)
        #expect(withheld.bodyStream == nil)
        #expect(withheld.request.bodyWithheld)

        request.httpBodyStream = nil
        request.httpBody = Data("form".utf8)
        let form = WKSchemeTaskAdapter.engineRequest(request, mayReadBody: { _ in true })
        #expect(form.request.body == Data("form".utf8))
        #expect(form.bodyStream == nil)
    }

    @Test func opaqueOriginsAreNull() {
        #expect(MessageProxy.serializedOrigin(protocol: "", host: "", port: 0) == "null")
        #expect(MessageProxy.serializedOrigin(protocol: "https", host: "a.com", port: 0) == "https://a.com")
        #expect(MessageProxy.serializedOrigin(protocol: "http", host: "::1", port: 8080) == "http://[::1]:8080")
        #expect(FrameInfo(url: nil, securityOrigin: "", isMainFrame: false).securityOrigin == "null")
    }

    final class HoldingDialogs: EngineUIDelegate, @unchecked Sendable {
        // Main actor only: replies kept, never answered (a custom alert still on screen when the page closes).
        var held: [any ScriptDialogReply] = []
        func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply) { held.append(reply) }
    }

    final class Answer: @unchecked Sendable {
        // Main actor only.
        var value: Bool?
    }

    /// A dialog whose reply the host still holds when the view closes is answered then, with the defaults: until
    /// then the page stays blocked in confirm() and WebKit's suspended call keeps the view. A dialog after the close
    /// gets the defaults without reaching the host.
    @Test func closingAnswersTheDialogsTheHostStillHolds() async throws {
        WKStandIn.backend = nil
        let engine = try WKEngine()
        let dialogs = HoldingDialogs()
        engine.uiDelegate = dialogs
        let url = try #require(URL(string: "https://a.example/"))
        let frame = WKFrameInfo(
            isMainFrame: true, request: URLRequest(url: url),
            securityOrigin: WKSecurityOrigin(serialized: "https://a.example"), webView: engine.webView)
        let answer = Answer()
        Task {
            answer.value = await engine.webView(
                engine.webView, runJavaScriptConfirmPanelWithMessage: "leave?", initiatedByFrame: frame)
        }
        #expect(try await waitUntil(timeout: .seconds(5)) { dialogs.held.count == 1 })
        #expect(answer.value == nil, "the host has not answered")
        engine.close()
        #expect(try await waitUntil(timeout: .seconds(5)) { answer.value != nil }, "closing left the dialog open")
        #expect(answer.value == false, "confirm's default")
        dialogs.held[0].answer(.confirmed(true))
        let late = await engine.webView(
            engine.webView, runJavaScriptConfirmPanelWithMessage: "again?", initiatedByFrame: frame)
        #expect(late == false && dialogs.held.count == 1)
    }

    /// WKUserContentController removes scripts only all at once: the engine puts back what the host's
    /// configuration held, not only its own.
    @Test func removingTheEnginesScriptsKeepsTheConfigurationsOwn() throws {
        WKStandIn.backend = nil
        let configuration = WKWebViewConfiguration()
        configuration.userContentController.addUserScript(
            WKUserScript(source: "host()", injectionTime: .atDocumentStart, forMainFrameOnly: true))
        let engine = try WKEngine(configuration: configuration)
        defer { engine.close() }
        let controller = engine.webView.configuration.userContentController
        let mine = UserScript(source: "mine()", injectionTime: .documentStart, allFrames: true)
        let other = UserScript(source: "other()", injectionTime: .documentEnd, allFrames: false)
        engine.addUserScript(mine)
        engine.addUserScript(other)
        engine.removeUserScript(mine)
        #expect(controller.userScripts.map(\.source) == ["host()", "other()"])
        engine.removeAllUserScripts()
        #expect(controller.userScripts.map(\.source) == ["host()"])
    }

    /// Two open engines on one content controller would register the bridge's handlers twice (WebKit raises) and
    /// remove each other's scripts: the second engine is a typed error saying what to change; once the first is
    /// closed, the controller may serve another.
    @Test func aContentControllerAnotherOpenEngineUsesIsATypedError() throws {
        WKStandIn.backend = nil
        let shared = WKUserContentController()
        let first = WKWebViewConfiguration()
        first.userContentController = shared
        let engine = try WKEngine(configuration: first)
        let second = WKWebViewConfiguration()
        second.userContentController = shared
        #expect(throws: EngineError.unsupported(WKEngine.sharedControllerAdvice)) {
            try WKEngine(configuration: second)
        }
        engine.close()
        let next = try WKEngine(configuration: second)
        next.close()
    }

    @Test func evaluateJavaScriptFromAnotherContextDoesNotTrap() async throws {
        // No engine behind the stand-in (suites that run before this one may have installed WebKitGTK; the
        // suites that need it install it again themselves).
        WKStandIn.backend = nil
        let engine = try WKEngine()
        let outcome = await Task.detached { () -> EngineError? in
            do throws(EngineError) {
                _ = try await engine.evaluateJavaScript("1 + 1")
                return nil
            } catch {
                return error
            }
        }.value
        // No engine behind this stand-in view: WebKit's error comes back as a typed error, not a trap.
        guard case .javaScript = outcome else {
            Issue.record("expected a JavaScript error, got \(String(describing: outcome))")
            return
        }
        _ = await Task.detached { try? await engine.snapshotPNG() }.value
    }

    @Test func schemesWebKitWouldRefuseAreTypedErrors() throws {
        #expect(throws: EngineError.schemeNotAllowed("https")) { try WKEngine(schemes: ["https"]) }
        #expect(throws: EngineError.schemeNotAllowed("1bad")) { try WKEngine(schemes: ["1bad"]) }
        let configuration = WKWebViewConfiguration()
        configuration.setURLSchemeHandler(NoHandler(), forURLScheme: "app")
        #expect(throws: EngineError.schemeNotAllowed("app")) {
            try WKEngine(configuration: configuration, schemes: ["app"])
        }
        let engine = try WKEngine(schemes: ["app"])
        try engine.setSchemeHandler(Handler(), forScheme: "APP")
        #expect(throws: EngineError.schemeNotAllowed("http")) {
            try engine.setSchemeHandler(Handler(), forScheme: "http")
        }
        do {
            try engine.setSchemeHandler(Handler(), forScheme: "late")
            Issue.record("a scheme named after creation must be refused")
        } catch {
            guard case .unsupported(let message) = error else { throw error }
            #expect(message.contains("WKEngineFactory(schemes:)"))
        }
    }

    @Test func closeIsFinalAndRepeatable() throws {
        let engine = try WKEngine(schemes: ["app"])
        engine.close()
        engine.close()
        #expect(throws: EngineError.viewClosed) { try engine.load(EngineRequest(url: URL(fileURLWithPath: "/"))) }
        #expect(!engine.restoreHistory(Data()))
    }

    @Test func repliesSettleOnceAndAlways() async throws {
        var calls: [String?] = []
        let reply = WKMessageReply { value, error in
            MainActor.assumeIsolated { calls.append(error ?? "\(value ?? "nil")") }
        }
        reply.resolve(json: "[1]")
        reply.reject(message: "second")
        #expect(calls.count == 1)
        var dropped: [String?] = []
        do {
            _ = WKMessageReply { _, error in MainActor.assumeIsolated { dropped.append(error) } }
        }
        #expect(try await waitUntil { dropped.count == 1 }, "a reply dropped unanswered still answers WebKit")
    }
}

/// Cookie matching uses HybridCookies' RFC 6265 rules.
@Suite struct WKCookieMatchingTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func cookie(domain: String = "a.com", path: String = "/", secure: Bool = false) -> EngineCookie {
        EngineCookie(name: "n", value: "v", domain: domain, path: path, isSecure: secure)
    }

    func matches(_ cookie: EngineCookie, _ url: String) -> Bool {
        guard let url = URL(string: url) else { return false }
        return WKCookieStore.matches(cookie, url: url, now: now)
    }

    @Test func aRootURLGetsRootCookies() {
        #expect(matches(cookie(), "https://a.com"))
        #expect(matches(cookie(), "https://a.com/"))
    }

    @Test func pathsMatchOnSlashBoundaries() {
        let shop = cookie(path: "/shop")
        #expect(matches(shop, "https://a.com/shop"))
        #expect(matches(shop, "https://a.com/shop/cart"))
        #expect(!matches(shop, "https://a.com/shopping"))
        #expect(!matches(shop, "https://a.com/"))
    }

    @Test func domainsMatchAsTheEngineKeepsThem() {
        #expect(matches(cookie(domain: ".a.com"), "https://www.a.com/"))
        #expect(!matches(cookie(domain: "a.com"), "https://www.a.com/"), "host-only")
        #expect(!matches(cookie(domain: ".a.com"), "https://evila.com/"))
    }

    @Test func secureAndExpired() {
        #expect(!matches(cookie(secure: true), "http://a.com/"))
        #expect(matches(cookie(secure: true), "https://a.com/"))
        var old = cookie()
        old.expires = now.addingTimeInterval(-1)
        #expect(!matches(old, "https://a.com/"))
    }

    @Test func sameSiteUsesFoundationsConstants() {
        var lax = cookie()
        lax.sameSite = .lax
        let laxValue = WKCookieStore.properties(lax)?[.sameSitePolicy] as? HTTPCookieStringPolicy
        #expect(laxValue == .sameSiteLax)
        lax.sameSite = .strict
        let strictValue = WKCookieStore.properties(lax)?[.sameSitePolicy] as? HTTPCookieStringPolicy
        #expect(strictValue == .sameSiteStrict)
        lax.sameSite = EngineCookie.SameSite.none
        #expect(WKCookieStore.properties(lax)?[.sameSitePolicy] == nil)
        #expect(WKCookieStore.sameSite(.sameSiteLax) == .lax)
        #expect(WKCookieStore.sameSite(.sameSiteStrict) == .strict)
        #expect(WKCookieStore.sameSite(nil) == nil)
    }
}
#endif
