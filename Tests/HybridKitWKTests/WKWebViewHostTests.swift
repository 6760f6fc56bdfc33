// The host for running HybridKitWK against the real WKWebView: compiled only where Apple's WebKit exists, so on a
// Mac `swift test --filter WKWebViewHostTests` drives a real WKWebView (main actor, the app's run loop). Never
// compiled or run on the Linux build machine, where the same tests' stand-in counterparts run instead.
#if canImport(WebKit) && !os(Linux)
    import Foundation
    import HybridKit
    import HybridKitWK
    import Testing
    import WebKit

    @Suite(.serialized) @MainActor struct WKWebViewHostTests {
        /// Serves one page from memory under `app://`.
        final class InlinePage: SchemeHandler, @unchecked Sendable {
            let html: String
            init(_ html: String) { self.html = html }
            func start(_ task: any SchemeTask) {
                task.respond(headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(html.utf8))
            }
            func stop(_ task: any SchemeTask) {}
        }

        final class Loads: NavigationDelegate, @unchecked Sendable {
            var finished = 0
            func didFinishNavigation(to url: URL?) { finished += 1 }
        }

        static let echo = BridgeModule("echo", access: .origins("app://host")) { module in
            module.method("twice") { (value: Int, _) async throws -> Int in value * 2 }
        }

        func waitUntil(_ condition: () async -> Bool) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if await condition() { return true }
                try await Task.sleep(for: .milliseconds(10))
            }
            return await condition()
        }

        @Test func aBridgeCallRoundTripsInARealWKWebView() async throws {
            let engine = try WKEngineFactory(schemes: ["app"]).makeEngine()
            defer { engine.close() }
            try engine.setSchemeHandler(InlinePage("<title>host</title><p>host</p>"), forScheme: "app")
            let page = try HybridPage(engine: engine, modules: [Self.echo])
            defer { page.close() }
            let loads = Loads()
            page.delegate = loads
            try engine.load(EngineRequest(url: try #require(URL(string: "app://host/index.html"))))
            #expect(try await waitUntil { loads.finished > 0 })
            #expect(try await waitUntil { (try? await engine.evaluateJavaScript("!!window.hybrid")) == "true" })
            _ = try? await engine.evaluateJavaScript("hybrid.call('echo','twice',21).then(v => window.__r = v); 0")
            #expect(try await waitUntil { (try? await engine.evaluateJavaScript("window.__r")) == "42" })
        }

        @Test func evaluateJavaScriptFromAnotherContextDoesNotTrap() async throws {
            let engine = try WKEngineFactory().makeEngine()
            defer { engine.close() }
            engine.loadHTML("<p>x</p>", baseURL: nil)
            let answer = await Task.detached { try? await engine.evaluateJavaScript("1 + 1") }.value
            #expect(answer == "2")
            #expect(await Task.detached { try? await engine.evaluateJavaScript("undefined") }.value == nil)
        }

        @Test func reservedSchemesAreTypedErrorsNotExceptions() throws {
            #expect(throws: EngineError.schemeNotAllowed("https")) { try WKEngine(schemes: ["https"]) }
        }

        @Test func historyRoundTripsThroughInteractionState() async throws {
            let engine = try WKEngineFactory(schemes: ["app"]).makeEngine()
            defer { engine.close() }
            try engine.setSchemeHandler(InlinePage("<p>h</p>"), forScheme: "app")
            let loads = Loads()
            engine.navigationDelegate = loads
            for path in ["a", "b"] {
                let before = loads.finished
                try engine.load(EngineRequest(url: try #require(URL(string: "app://host/\(path)"))))
                #expect(try await waitUntil { loads.finished > before })
            }
            #expect(engine.historyLength == 2)
            let snapshot = try #require(engine.historySnapshot())
            let other = try WKEngineFactory(schemes: ["app"]).makeEngine()
            defer { other.close() }
            #expect(other.restoreHistory(snapshot))
        }
    }
#endif
