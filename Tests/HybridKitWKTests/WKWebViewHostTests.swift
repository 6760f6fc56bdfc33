// The host for running HybridKitWK against the real WKWebView: compiled only where Apple's WebKit exists, so on a
// Mac `swift test --filter WKWebViewHostTests` drives a real WKWebView (main actor, the app's run loop) through the
// whole engine conformance suite and the adapter's own tests. It cannot run on the Linux machine HybridKit is
// developed on (no Apple toolchain or WebKit there), so it has not run yet: the same cases run here through the
// stand-in (`EngineConformanceWKTests`, `WKRuntimeFixesTests`).
#if canImport(WebKit) && !os(Linux)
import Foundation
import HybridKit
import HybridKitTesting
import HybridKitWK
import Network
import Testing
import WebKit

@Suite(.serialized) @MainActor struct WKWebViewHostTests {
    /// The real WKWebView behind the suite: its factory, and a loopback HTTP origin of Network.framework.
    struct Host: EngineConformanceHost {
        func makeFactory(settings: WebViewSettings) throws -> any WebEngineFactory {
            // WKWebView takes its scheme handlers with its configuration: the suite's scheme is named here.
            WKEngineFactory(schemes: ["conformance"], settings: settings)
        }

        func serveHTTP(directory: URL) async throws -> ConformanceHTTPOrigin {
            let server = try await LoopbackFileServer.start(serving: directory)
            return ConformanceHTTPOrigin(url: server.origin) { server.stop() }
        }
    }

    /// What WKWebView's public API cannot do. Run as known issues, so one that starts passing fails this test
    /// and gets taken off the list.
    static let knownGaps: [String: String] = [
        "scheme.statusHeadersReasonAndStreamedBody":
            "a WKURLSchemeTask answers with an HTTPURLResponse, which has no reason phrase: pages see the "
            + "standard one for the status",
        "subresources.failuresReachTheUIDelegate":
            "WKWebView reports no sub-resource failures to its delegates; HybridKitWK cannot hear them",
        "process.terminationIsReportedAndReloadRecovers":
            "WKWebView has no public call that ends its web process, so terminateWebProcess() does nothing",
    ]

    @Test(arguments: EngineConformance.cases)
    func conforms(_ check: ConformanceCase) async throws {
        if let gap = Self.knownGaps[check.name] {
            await withKnownIssue(Comment(rawValue: gap)) { try await check.run(on: Host()) }
            return
        }
        do {
            try await check.run(on: Host())
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func everyGapNamesACase() {
        #expect(Set(Self.knownGaps.keys).isSubset(of: Set(EngineConformance.cases.map(\.name))))
    }

    /// The suite fails its reply, frame and history cases on an engine without them: the adapter has all three.
    @Test func theAdapterHasRepliesFramesAndHistory() async throws {
        let engine = try WKEngineFactory().makeEngine()
        defer { engine.close() }
        #expect(engine.supportsMessageReplies)
        #expect(engine.verifiesMessageFrames)
        engine.loadHTML("<p>h</p>", baseURL: URL(string: "https://example.invalid/"))
        #expect(try await waitUntil { engine.historySnapshot() != nil })
    }

    // MARK: The adapter's own

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

    /// From a detached task (off the main actor): an answer, and `undefined` as nil, neither a thrown error.
    @Test func evaluateJavaScriptFromAnotherContextDoesNotTrap() async throws {
        let engine = try WKEngineFactory().makeEngine()
        defer { engine.close() }
        engine.loadHTML("<p>x</p>", baseURL: nil)
        let answer = await Task.detached { () -> Result<String?, EngineError> in
            do throws(EngineError) { return .success(try await engine.evaluateJavaScript("1 + 1")) } catch {
                return .failure(error)
            }
        }.value
        #expect(try answer.get() == "2")
        let undefined = await Task.detached { () -> Result<String?, EngineError> in
            do throws(EngineError) { return .success(try await engine.evaluateJavaScript("undefined")) } catch {
                return .failure(error)
            }
        }.value
        // `try get()` throws (and fails the test) when evaluateJavaScript threw; only a real nil passes.
        #expect(try undefined.get() == nil)
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

    /// Two factories with stores of their own: one's cookies, changes and clearing never reach the other.
    @Test func nonPersistentStoresAreSeparate() async throws {
        let first = WKEngineFactory(dataStore: .nonPersistent)
        let a1 = try first.makeEngine()
        let a2 = try first.makeEngine()
        let b = try WKEngineFactory(dataStore: .nonPersistent).makeEngine()
        defer { for engine in [a1, a2, b] { engine.close() } }
        final class Count: @unchecked Sendable {
            var value = 0
        }
        let heardByB = Count()
        b.cookieStore.observeChanges { MainActor.assumeIsolated { heardByB.value += 1 } }
        try await a1.cookieStore.setCookie(EngineCookie(name: "cart", value: "1", domain: "shop.example"))
        #expect(try await a2.cookieStore.cookies(for: nil).map(\.name) == ["cart"])
        #expect(try await b.cookieStore.cookies(for: nil).isEmpty)
        try await Task.sleep(for: .milliseconds(300))
        #expect(heardByB.value == 0)
        try await b.cookieStore.setCookie(EngineCookie(name: "other", value: "1", domain: "shop.example"))
        try await a1.clearWebsiteData(.all, modifiedSince: nil)
        #expect(try await a2.cookieStore.cookies(for: nil).isEmpty)
        #expect(try await b.cookieStore.cookies(for: nil).map(\.name) == ["other"])
    }
}

/// A loopback HTTP/1.1 file server over Network.framework, for the suite's http origin: one request per
/// connection, `GET /path` answers the file under `root` (404 when missing, 403 for `..`).
final class LoopbackFileServer: @unchecked Sendable {
    private let listener: NWListener
    private let root: URL
    private let queue = DispatchQueue(label: "WKWebViewHostTests.http")
    private(set) var origin = URL(fileURLWithPath: "/")

    private init(listener: NWListener, root: URL) {
        self.listener = listener
        self.root = root
    }

    static func start(serving root: URL) async throws -> LoopbackFileServer {
        let parameters = NWParameters.tcp
        parameters.requiredLocalEndpoint = .hostPort(host: .ipv4(.loopback), port: .any)
        let server = LoopbackFileServer(listener: try NWListener(using: parameters), root: root)
        server.listener.newConnectionHandler = { connection in server.serve(connection) }
        let port: UInt16 = try await withCheckedThrowingContinuation { continuation in
            let once = NSLock()
            var resumed = false
            func finish(_ result: Result<UInt16, any Error>) {
                let first = once.withLock { () -> Bool in
                    defer { resumed = true }
                    return !resumed
                }
                if first { continuation.resume(with: result) }
            }
            server.listener.stateUpdateHandler = { state in
                switch state {
                case .ready: finish(.success(server.listener.port?.rawValue ?? 0))
                case .failed(let error): finish(.failure(error))
                case .cancelled: finish(.failure(URLError(.cannotConnectToHost)))
                default: break
                }
            }
            server.listener.start(queue: server.queue)
        }
        guard port != 0, let origin = URL(string: "http://127.0.0.1:\(port)/") else {
            server.stop()
            throw URLError(.cannotConnectToHost)
        }
        server.origin = origin
        return server
    }

    func stop() { listener.cancel() }

    private func serve(_ connection: NWConnection) {
        connection.start(queue: queue)
        receiveHead(connection, after: Data())
    }

    private func receiveHead(_ connection: NWConnection, after received: Data) {
        connection.receive(minimumIncompleteLength: 1, maximumLength: 64 * 1024) { data, _, complete, error in
            var head = received
            if let data { head.append(data) }
            if head.range(of: Data("\r\n\r\n".utf8)) != nil {
                self.answer(connection, head: head)
            } else if complete || error != nil || head.count > 64 * 1024 {
                connection.cancel()
            } else {
                self.receiveHead(connection, after: head)
            }
        }
    }

    private func answer(_ connection: NWConnection, head: Data) {
        let requestLine = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        let path = parts.count > 1 ? String(parts[1].split(separator: "?").first ?? "/") : "/"
        let decoded = path.removingPercentEncoding ?? path
        var status = "200 OK"
        var body = Data()
        var type = "text/plain"
        if decoded.split(separator: "/").contains("..") {
            status = "403 Forbidden"
        } else if let file = try? Data(contentsOf: root.appendingPathComponent(String(decoded.dropFirst()))) {
            body = file
            type = Self.contentType(decoded)
        } else {
            status = "404 Not Found"
        }
        let header =
            "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        connection.send(
            content: Data(header.utf8) + body,
            completion: .contentProcessed { _ in connection.cancel() })
    }

    private static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript"
        case "json": "application/json"
        case "css": "text/css"
        case "txt": "text/plain; charset=utf-8"
        case "png": "image/png"
        default: "application/octet-stream"
        }
    }
}
#endif
