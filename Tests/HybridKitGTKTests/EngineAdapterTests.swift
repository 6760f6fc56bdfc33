import Foundation
import HybridKit
import HybridKitGTK
import Synchronization
import Testing

/// The port's operations on real WebKitGTK, beyond what the bridge uses.
@Suite(.serialized) struct EngineAdapterTests {
    /// Answers `/stream` in three chunks spread over several turns (so the response streams through a pipe),
    /// `/whole` in one go, `/missing` with a failure.
    final class Handler: SchemeHandler {
        let seen = Mutex<[EngineRequest]>([])

        func start(_ task: any SchemeTask) {
            seen.withLock { $0.append(task.request) }
            switch task.request.url.path {
            case "/index.html":
                task.respond(headers: ["Content-Type": "text/html"], body: Data("<title>scheme</title><p>ok</p>".utf8))
            case "/stream":
                task.respond(
                    SchemeResponse(statusCode: 200, headers: ["Content-Type": "text/plain", "X-Hybrid": "yes"]))
                Task { @GTKActor in
                    for chunk in ["alpha-", "beta-", String(repeating: "g", count: 200_000)] {
                        try? await Task.sleep(for: .milliseconds(20))
                        task.send(Data(chunk.utf8))
                    }
                    task.finish()
                }
            case "/teapot":
                task.respond(status: 418, headers: ["Content-Type": "text/plain"], body: Data("short and stout".utf8))
            default:
                task.fail(.notFound(task.request.url.path))
            }
        }

        func stop(_ task: any SchemeTask) {}
    }

    final class Events: NavigationDelegate, @unchecked Sendable {
        // Touched on GTK's thread only.
        var finished = 0
        var terminations: [WebProcessTerminationReason] = []
        func didFinishNavigation(to url: URL?) { finished += 1 }
        func webProcessDidTerminate(reason: WebProcessTerminationReason) { terminations.append(reason) }
    }

    @GTKActor
    func makeView(_ handler: Handler, _ events: Events) throws -> GTKWebView {
        try GTKRuntime.shared.start(.headless)
        let view = GTKWebView()
        try view.setSchemeHandler(handler, forScheme: "enginetest")
        view.navigationDelegate = events
        return view
    }

    @Test @GTKActor func schemeHandlerStreamsStatusHeadersAndBody() async throws {
        let handler = Handler()
        let events = Events()
        let view = try makeView(handler, events)
        defer { view.close() }
        try view.load(EngineRequest(url: try #require(URL(string: "enginetest://host/index.html"))))
        try await waitUntil(timeout: .seconds(30)) { events.finished == 1 && view.title == "scheme" }
        _ = try await view.evaluateJavaScript(
            """
            window.done = Promise.all([
              fetch('/stream').then(async (r) => [r.status, r.headers.get('X-Hybrid'), (await r.text()).length]),
              fetch('/teapot').then(async (r) => [r.status, await r.text()]),
              fetch('/missing').then(() => 'resolved', (e) => 'failed: ' + e.name),
              fetch('/stream', { method: 'POST', body: 'hello body', headers: { 'X-Test': '1' } }).then((r) => r.status),
            ]).then((all) => { window.results = all; });
            true
            """)
        try await waitUntil(timeout: .seconds(30)) {
            (try? await view.evaluateJavaScript("!!window.results")) == "true"
        }
        let results = try #require(try await view.evaluateJavaScript("window.results"))
        #expect(results == #"[[200,"yes",200011],[418,"short and stout"],"failed: TypeError",200]"#)
        let post = try #require(handler.seen.withLock { $0.first { $0.method == "POST" } })
        #expect(post.body == Data("hello body".utf8))
        #expect(post.header("x-test") == "1")
    }

    @Test @GTKActor func refusesWhatItCannotDoFaithfully() throws {
        let view = try makeView(Handler(), Events())
        defer { view.close() }
        #expect(throws: EngineError.schemeNotAllowed("https")) {
            try view.setSchemeHandler(Handler(), forScheme: "https")
        }
        let post = EngineRequest(
            url: try #require(URL(string: "enginetest://host/form")), method: "POST", body: Data("a=1".utf8))
        #expect(throws: EngineError.self) { try view.load(post) }
    }

    @Test @GTKActor func evaluationErrorsAreTyped() async throws {
        let events = Events()
        let view = try makeView(Handler(), events)
        defer { view.close() }
        view.loadHTML("<p>x</p>", baseURL: URL(string: "enginetest://host/"))
        try await waitUntil(timeout: .seconds(30)) { events.finished == 1 }
        await #expect(throws: EngineError.self) { try await view.evaluateJavaScript("throw new Error('boom')") }
        #expect(try await view.evaluateJavaScript("undefined") == nil)
        #expect(try await view.evaluateJavaScript("({a: [1, 'two']})") == #"{"a":[1,"two"]}"#)
    }

    @Test @GTKActor func cookiesCanBeSetReadAndDeleted() async throws {
        let view = try makeView(Handler(), Events())
        defer { view.close() }
        let store = view.cookieStore
        let changes = Mutex(0)
        store.observeChanges { changes.withLock { $0 += 1 } }
        let cookie = EngineCookie(
            name: "session", value: "abc", domain: "cookies.example", path: "/",
            expires: Date(timeIntervalSinceNow: 3600),
            isSecure: true, isHTTPOnly: true, sameSite: .lax)
        try await store.setCookie(cookie)
        let url = try #require(URL(string: "https://cookies.example/account"))
        let found = try await store.cookies(for: url)
        #expect(found.count == 1)
        #expect(found.first?.value == "abc" && found.first?.isHTTPOnly == true && found.first?.isSecure == true)
        #expect(found.first?.sameSite == .lax)
        #expect(try await store.cookies(for: URL(string: "http://cookies.example/")).isEmpty, "Secure cookie over http")
        try await store.deleteCookie(cookie)
        #expect(try await store.cookies(for: url).isEmpty)
        try await waitUntil(timeout: .seconds(30)) { changes.withLock { $0 } >= 2 }
    }

    @Test @GTKActor func webProcessTerminationIsReported() async throws {
        let events = Events()
        let view = try makeView(Handler(), events)
        defer { view.close() }
        try view.load(EngineRequest(url: try #require(URL(string: "enginetest://host/index.html"))))
        try await waitUntil(timeout: .seconds(30)) { events.finished == 1 }
        view.terminateWebProcess()
        try await waitUntil(timeout: .seconds(30)) { !events.terminations.isEmpty }
        #expect(events.terminations == [.terminatedByAPI])
        // The view comes back on reload, with a new web process.
        view.reload()
        try await waitUntil(timeout: .seconds(30)) { view.title == "scheme" }
        #expect(try await view.evaluateJavaScript("document.title") == "\"scheme\"")
    }

    @Test @GTKActor func snapshotIsAPNGAndUserAgentApplies() async throws {
        let events = Events()
        let view = try makeView(Handler(), events)
        defer { view.close() }
        view.customUserAgent = "HybridKitTest/1.0"
        view.loadHTML("<body style='background:#c00'>red</body>", baseURL: URL(string: "enginetest://host/"))
        try await waitUntil(timeout: .seconds(30)) { events.finished == 1 }
        #expect(try await view.evaluateJavaScript("navigator.userAgent") == "\"HybridKitTest/1.0\"")
        let png = try await view.snapshotPNG()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(png.count > 1000)
    }
}
