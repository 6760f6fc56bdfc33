#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridDemo
import HybridKit
import HybridKitGTK
import HybridKitTesting
import HybridKitWK
import Testing
import WebKitStandIn

/// HybridKitWK driven end to end: WKEngineFactory → WKEngine → the WebKit stand-in (main actor) → WebKitGTK
/// (GTK's thread) and back.
@Suite(.serialized) @MainActor struct WKEndToEndTests {
    static let echo = BridgeModule("echo", access: .origins("app://demo")) { module in
        module.method("twice") { (value: Int, _) async throws -> Int in value * 2 }
        module.method("thrice", synchronous: true) { (value: Int, _) in value * 3 }
    }

    static func installGTKBackend() throws {
        try GTKRuntime.shared.start(.headless)
        WKStandIn.backend = WKStandInBackend(
            makeEngine: { settings in
                GTKWebView(configuration: GTKWebView.Configuration(settings: settings))
            })
    }

    /// An engine from WKEngineFactory serving the tour pages as `app://demo/`, with a page offering `echo`.
    static func echoPageOnTourPages() throws -> (any WebEngine, HybridPage) {
        try installGTKBackend()
        let pages = try #require(TourPages.directory)
        let engine = try WKEngineFactory(schemes: ["app"]).makeEngine()
        do {
            try engine.setSchemeHandler(DirectorySchemeHandler(root: pages), forScheme: "app")
            return (engine, try HybridPage(engine: engine, modules: [echo]))
        } catch {
            engine.close()
            throw error
        }
    }

    final class Loads: NavigationDelegate, @unchecked Sendable {
        // Main actor only (the stand-in's main actor, the engine thread).
        var finished = 0
        func didFinishNavigation(to url: URL?) { finished += 1 }
    }

    func evaluate(_ engine: any WebEngine, _ script: String) async -> String? {
        try? await engine.evaluateJavaScript(script)
    }

    @Test func aBridgeCallRoundTripsThroughTheFactory() async throws {
        let (engine, page) = try Self.echoPageOnTourPages()
        defer {
            page.close()
            engine.close()
        }
        let loads = Loads()
        page.delegate = loads
        try engine.load(EngineRequest(url: try #require(URL(string: "app://demo/test/blank.html"))))
        #expect(try await waitUntil { loads.finished > 0 })
        #expect(engine.url?.absoluteString == "app://demo/test/blank.html")
        #expect(await evaluate(engine, "1 + 1") == "2")
        // The port has no title event: the stand-in re-reads the title after loads and scripts.
        #expect(
            try await waitUntil {
                _ = await evaluate(engine, "document.title"); return engine.title == "blank"
            })
        #expect(try await waitUntil { await evaluate(engine, "!!(window.hybrid && hybrid.isReady)") == "true" })
        _ = await evaluate(
            engine, "window.__r = null; hybrid.call('echo', 'twice', 21).then(v => window.__r = v); 0")
        #expect(try await waitUntil { await evaluate(engine, "window.__r") == "42" })
        #expect(await page.bridge.stats.succeeded == 1)
    }

    /// WKWebView's text-input panel carries the frame (`WKFrameInfo`): a synchronous call goes through it
    /// to the bridge, a page's own prompt to the host, and published state is there at document start.
    @Test func synchronousCallsAndStateWorkThroughTheFactory() async throws {
        let (engine, page) = try Self.echoPageOnTourPages()
        defer {
            page.close()
            engine.close()
        }
        final class Host: EngineUIDelegate, @unchecked Sendable {
            // Main actor only.
            var prompts: [String] = []
            func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply) {
                prompts.append(dialog.message)
                reply.answer(.text("host"))
            }
        }
        let host = Host()
        page.uiDelegate = host
        try page.bridge.publishState("greeting", "hello", module: "echo")
        let loads = Loads()
        page.delegate = loads
        try engine.load(EngineRequest(url: try #require(URL(string: "app://demo/test/blank.html"))))
        #expect(try await waitUntil { loads.finished > 0 })
        #expect(await evaluate(engine, "hybrid.state.get('greeting')") == "\"hello\"")
        #expect(await evaluate(engine, "hybrid.callSync('echo', 'thrice', 14)") == "42")
        #expect(await evaluate(engine, "prompt('who?')") == "\"host\"")
        #expect(host.prompts == ["who?"])
    }

    @Test func aContainerServesPagesAndBridgeCallsThroughTheFactory() async throws {
        try Self.installGTKBackend()
        let serving = try #require(DirectoryServing.tourPages)
        let events = PageEvents()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(
                modules: [Self.echo], messageHandlers: [HostMessageHandler(name: "probe", handler: events)],
                features: [serving]),
            factory: WKEngineFactory(schemes: ["app"]))
        defer { container.close() }
        container.navigationDelegate = events
        try container.load(try #require(URL(string: "app://demo/test/blank.html")))
        #expect(try await waitUntil { events.finishes > 0 })
        #expect(
            try await waitUntil {
                await evaluate(container.engine, "!!(window.hybrid && hybrid.isReady)") == "true"
            })
        _ = await evaluate(
            container.engine,
            "hybrid.call('echo', 'twice', 4).then((a) => webkit.messageHandlers.probe.postMessage(String(a))); 1")
        #expect(try await waitUntil { events.posts == ["8"] })
    }

    @Test func historyAndPolicyAndDialogsMapOntoWebKit() async throws {
        try Self.installGTKBackend()
        let pages = try #require(TourPages.directory)
        let factory = WKEngineFactory(schemes: ["app"])
        let engine = try factory.makeEngine()
        defer { engine.close() }
        try engine.setSchemeHandler(DirectorySchemeHandler(root: pages), forScheme: "app")
        let policy = Policy()
        engine.navigationDelegate = policy
        for path in ["test/blank.html", "test/frame-probe.html"] {
            let before = policy.finished
            try engine.load(EngineRequest(url: try #require(URL(string: "app://demo/\(path)"))))
            #expect(try await waitUntil { policy.finished > before })
        }
        #expect(try await waitUntil { engine.historyLength == 2 })
        let snapshot = try #require(engine.historySnapshot())

        // The navigation delegate's answer is WebKit's decision handler's.
        try engine.load(EngineRequest(url: try #require(URL(string: "app://demo/test/blocked.html"))))
        #expect(try await waitUntil { policy.cancelled == 1 })
        #expect(engine.url?.lastPathComponent == "frame-probe.html")

        // Dialogs reach the port's UI delegate through WKUIDelegate.
        let dialogs = Dialogs()
        engine.uiDelegate = dialogs
        #expect(await evaluate(engine, "confirm('sure?')") == "true")
        #expect(dialogs.messages == ["sure?"])

        let other = try factory.makeEngine()
        defer { other.close() }
        #expect(other.restoreHistory(snapshot))
        #expect(try await waitUntil { other.historyLength == 2 })
    }

    final class Policy: NavigationDelegate, @unchecked Sendable {
        // Main actor only.
        var finished = 0
        var cancelled = 0
        func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy {
            guard action.request.url.lastPathComponent == "blocked.html" else { return .allow }
            cancelled += 1
            return .cancel
        }
        func didFinishNavigation(to url: URL?) { finished += 1 }
    }

    final class Dialogs: EngineUIDelegate, @unchecked Sendable {
        // Main actor only.
        var messages: [String] = []
        func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply) {
            messages.append(dialog.message)
            reply.answer(.confirmed(true))
        }
    }

    @Test func settingsApplyAtCreationAndWebsiteDataClears() async throws {
        try Self.installGTKBackend()
        let settings = WebViewSettings(
            mediaPlaybackRequiresUserGesture: false, javaScriptCanOpenWindowsAutomatically: true,
            userAgent: .appending("HybridWK/1"))
        let engine = try WKEngineFactory(settings: settings).makeEngine()
        defer { engine.close() }
        let view = try #require((engine as? WKEngine)?.webView)
        #expect(view.configuration.preferences.javaScriptCanOpenWindowsAutomatically)
        #expect(view.configuration.mediaTypesRequiringUserActionForPlayback.isEmpty)
        #expect(view.configuration.applicationNameForUserAgent == "HybridWK/1")
        engine.loadHTML("<p>ua</p>", baseURL: URL(string: "https://example.invalid/"))
        #expect(
            try await waitUntil { await evaluate(engine, "navigator.userAgent.endsWith('HybridWK/1')") == "true" })

        let replaced = try WKEngineFactory(settings: WebViewSettings(userAgent: .replacing("Exactly/2")))
            .makeEngine()
        defer { replaced.close() }
        #expect(replaced.customUserAgent == "Exactly/2")

        let cookie = EngineCookie(name: "wk-clear", value: "1", domain: "clear.example")
        try await engine.cookieStore.setCookie(cookie)
        #expect(try await engine.cookieStore.cookies(for: nil).contains { $0.name == "wk-clear" })
        try await engine.clearWebsiteData(.cookies, modifiedSince: nil)
        #expect(try await !engine.cookieStore.cookies(for: nil).contains { $0.name == "wk-clear" })
    }

    /// `loadSimulatedRequest` through WKWebView's API (the stand-in on WebKitGTK): the document has the request's
    /// URL and origin, and its charset.
    @Test func aSimulatedLoadShowsTheDocumentUnderItsRealURL() async throws {
        try Self.installGTKBackend()
        let engine = try WKEngineFactory().makeEngine()
        defer { engine.close() }
        let url = try #require(URL(string: "https://news.invalid/a?x=1"))
        try engine.loadSimulatedRequest(
            EngineRequest(url: url),
            response: SchemeResponse(statusCode: 200, headers: ["Content-Type": "text/html; charset=utf-8"]),
            responseData: Data("<title>sim</title><p>é</p>".utf8))
        #expect(try await waitUntil { await evaluate(engine, "document.title") == #""sim""# })
        #expect(await evaluate(engine, "location.href") == #""https://news.invalid/a?x=1""#)
        #expect(await evaluate(engine, "self.origin") == #""https://news.invalid""#)
        #expect(await evaluate(engine, "document.body.innerText") == #""é""#)
    }

    @Test func evaluateJavaScriptOffTheMainActorReachesGTK() async throws {
        try Self.installGTKBackend()
        let engine = try WKEngineFactory().makeEngine()
        defer { engine.close() }
        engine.loadHTML("<title>t</title><p>x</p>", baseURL: URL(string: "https://example.invalid/"))
        let answer = await Task.detached { try? await engine.evaluateJavaScript("[1, 'two', {three: 3}]") }.value
        #expect(answer == #"[1,"two",{"three":3}]"#)
        let failure = await Task.detached { () -> EngineError? in
            do throws(EngineError) {
                _ = try await engine.evaluateJavaScript("throw new Error('boom')")
                return nil
            } catch { return error }
        }.value
        guard case .javaScript = failure else {
            Issue.record("expected a JavaScript error, got \(String(describing: failure))")
            return
        }
    }

    @Test func cookiesGoThroughWKHTTPCookieStoreToTheEngine() async throws {
        try Self.installGTKBackend()
        let engine = try WKEngineFactory().makeEngine()
        defer { engine.close() }
        let store = engine.cookieStore
        let cookie = EngineCookie(name: "wk-e2e", value: "1", domain: "wk.example", path: "/shop")
        try await store.setCookie(cookie)
        let url = try #require(URL(string: "http://wk.example/shop/cart"))
        #expect(try await store.cookies(for: url).contains { $0.name == "wk-e2e" })
        let other = try #require(URL(string: "http://wk.example/shopping"))
        #expect(try await !store.cookies(for: other).contains { $0.name == "wk-e2e" })
        try await store.deleteCookie(cookie)
        #expect(try await !store.cookies(for: url).contains { $0.name == "wk-e2e" })
    }

    @Test func aSandboxedFrameArrivesWithANullOrigin() async throws {
        try Self.installGTKBackend()
        let pages = try #require(TourPages.directory)
        let engine = try WKEngineFactory(schemes: ["app"]).makeEngine()
        defer { engine.close() }
        try engine.setSchemeHandler(DirectorySchemeHandler(root: pages), forScheme: "app")
        let recorder = OriginRecorder()
        engine.addScriptMessageHandler(recorder, name: "probe", replies: false)
        engine.addUserScript(
            UserScript(source: "window.webkit.messageHandlers.probe.postMessage('hi')", allFrames: true))
        engine.loadHTML(
            "<iframe sandbox='allow-scripts' srcdoc='<p>x</p>'></iframe>",
            baseURL: URL(string: "app://demo/"))
        #expect(try await waitUntil { recorder.origins.count >= 2 })
        #expect(recorder.origins.contains("null"), "the sandboxed frame: \(recorder.origins)")
    }
}

final class OriginRecorder: ScriptMessageHandler, @unchecked Sendable {
    // Main actor only.
    var origins: [String] = []
    func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
        origins.append(message.frame?.securityOrigin ?? "<none>")
    }
}
#endif
