import Foundation
import HybridKit
import Synchronization

/// What a conformance case drives: engines made by the host's factory, a recording navigation and UI delegate,
/// and a scheme handler serving the case's pages under `conformance://host/`.
///
/// On the engine's actor, so a case calls the port as the port demands, with no hops.
@EngineActor
final class ConformanceRig {
    static let scheme = "conformance"
    static let base = URL(string: "conformance://host/")

    nonisolated let factory: any WebEngineFactory
    nonisolated let host: any EngineConformanceHost

    let events = RecordingNavigationDelegate()
    let ui = RecordingUIDelegate()
    let handler = ConformanceSchemeHandler()
    private var engines: [any WebEngine] = []
    private var origins: [ConformanceHTTPOrigin] = []
    private var directories: [URL] = []
    private var first: (any WebEngine)?

    /// Runs a body on the engine's actor after `delay`, for handlers that answer over several turns.
    nonisolated let later: @Sendable (Duration, @escaping @EngineActor @Sendable () -> Void) -> Void

    nonisolated init(factory: any WebEngineFactory, host: any EngineConformanceHost) {
        self.factory = factory
        self.host = host
        let runner = EngineExecutorHop()
        later = { delay, body in
            Task {
                try? await Task.sleep(for: delay)
                await runner.run(body)
            }
        }
    }

    func perform(_ body: @EngineActor @Sendable (ConformanceRig) async throws -> Void) async throws {
        try await body(self)
    }

    /// The case's engine, made on first use with the rig's delegates and scheme handler.
    func engine() throws -> any WebEngine {
        if let first { return first }
        let made = try makeEngine()
        first = made
        return made
    }

    /// Another engine with the same delegates and handler (closed at the end of the case).
    func makeEngine() throws -> any WebEngine {
        let engine = try factory.makeEngine()
        engines.append(engine)
        try engine.setSchemeHandler(handler, forScheme: Self.scheme)
        engine.navigationDelegate = events
        engine.uiDelegate = ui
        return engine
    }

    func tearDown() async {
        for engine in engines { engine.close() }
        engines.removeAll()
        first = nil
        for origin in origins { await origin.stop() }
        origins.removeAll()
        for directory in directories { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: Assertions

    func fail(_ message: String) -> ConformanceFailure { ConformanceFailure(message: message) }

    /// The failure of a case that meets an engine without `capability`: it checked nothing, so it must not pass.
    /// A host whose engine lacks the capability on purpose runs the case as a known issue.
    func missing(_ capability: String) -> ConformanceFailure {
        ConformanceFailure(
            message: "the engine reports no \(capability), so this case checked nothing; if the engine truly lacks "
                + "it, declare this case a known issue of the adapter (withKnownIssue), else make \(capability) true",
            missingCapability: capability)
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(ConformanceFailure) {
        if !condition { throw fail(message()) }
    }

    func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws(ConformanceFailure) {
        if actual != expected { throw fail("\(what): expected \(expected), got \(actual)") }
    }

    /// Polls `condition` on the engine's actor until it holds, or fails naming `what`. `nonisolated(nonsending)`:
    /// a condition that captures only an engine (not the rig) must still run here, where the port may be called.
    func waitUntil(
        _ what: String, timeout: Duration = .seconds(20), _ condition: nonisolated(nonsending) () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        if try await condition() { return }
        throw fail("timed out after \(timeout) waiting for \(what)")
    }

    /// Lets `duration` pass with the engine's loop running, for checks that something did NOT happen.
    func idle(_ duration: Duration = .milliseconds(600)) async throws {
        try await Task.sleep(for: duration)
    }

    // MARK: Pages

    func url(_ path: String) throws -> URL {
        guard let url = URL(string: path, relativeTo: Self.base)?.absoluteURL else { throw fail("bad path \(path)") }
        return url
    }

    /// Serves `html` at `conformance://host/<path>`.
    func page(_ path: String, _ html: String) {
        handler.serve(path: "/" + path, contentType: "text/html", body: Data(html.utf8))
    }

    /// Loads `conformance://host/<path>` and waits until the engine says the main frame finished it.
    func load(_ path: String) async throws {
        let target = try url(path)
        let before = events.finished(at: target)
        try engine().load(EngineRequest(url: target))
        try await waitUntil("didFinishNavigation(to: \(target))") { events.finished(at: target) > before }
    }

    /// Loads `html` with `baseURL` and waits until it finished.
    func loadHTML(_ html: String, baseURL: URL?) async throws {
        let before = events.finishCount
        try engine().loadHTML(html, baseURL: baseURL)
        try await waitUntil("didFinishNavigation after loadHTML") { events.finishCount > before }
    }

    /// Waits (5 s at most) until `WebEngine/title` is `title`. WebKitGTK may still report the old or an empty
    /// title right after didFinishNavigation: the title is the engine's property, not part of the load.
    func waitForTitle(_ title: String) async throws {
        let engine = try engine()
        do {
            try await waitUntil("title", timeout: .seconds(5)) { engine.title == title }
        } catch {
            throw fail("title: expected \(title), got \(engine.title ?? "nil")")
        }
    }

    /// Evaluates `script` in the main frame of the case's engine.
    func eval(_ script: String) async throws -> String? {
        try await engine().evaluateJavaScript(script)
    }

    /// Evaluates `script` in `engine` (the case's by default), keeping the engine's typed error.
    func evaluation(_ script: String, in engine: (any WebEngine)? = nil) async -> Result<String?, EngineError> {
        guard let target = engine ?? first else { return .failure(.viewClosed) }
        do throws(EngineError) {
            return .success(try await target.evaluateJavaScript(script))
        } catch {
            return .failure(error)
        }
    }

    /// Evaluates `expression` (which may give a promise) and returns its settled value as JSON text,
    /// `{"v": value}` or `{"e": "message"}`.
    func settle(_ expression: String, timeout: Duration = .seconds(20)) async throws -> String {
        let engine = try engine()
        _ = try await engine.evaluateJavaScript(
            """
            window.__conformance = undefined;
            Promise.resolve().then(() => (\(expression))).then(
              (v) => { window.__conformance = JSON.stringify({ v: v === undefined ? null : v }); },
              (e) => { window.__conformance = JSON.stringify({ e: String((e && e.message) || e) }); });
            true
            """)
        var result: String?
        try await waitUntil("`\(expression)` to settle", timeout: timeout) {
            result = try await engine.evaluateJavaScript("window.__conformance")
            return result != nil && result != "null"
        }
        // The value is a JSON string holding JSON: decode the outer layer.
        guard let text = result, let data = text.data(using: .utf8),
            let inner = try? JSONDecoder().decode(String.self, from: data)
        else { throw fail("`\(expression)` settled to \(result ?? "nil"), not a string") }
        return inner
    }

    /// Waits until `condition` (a script) is true in the main frame.
    func waitFor(_ condition: String, timeout: Duration = .seconds(20)) async throws {
        let engine = try engine()
        try await waitUntil("`\(condition)` in the page", timeout: timeout) {
            (try? await engine.evaluateJavaScript("!!(\(condition))")) == "true"
        }
    }

    /// A fresh directory removed at the end of the case.
    func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("conformance-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        directories.append(directory)
        return directory
    }

    /// A loopback HTTP origin serving `files` (path → contents), stopped at the end of the case.
    func httpOrigin(_ files: [String: String]) async throws -> URL {
        let directory = try temporaryDirectory()
        for (path, contents) in files {
            let file = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: file)
        }
        let origin = try await host.serveHTTP(directory: directory)
        origins.append(origin)
        return origin.url
    }
}

/// Records every navigation event and answers policy questions with closures a case sets.
final class RecordingNavigationDelegate: NavigationDelegate {
    struct State {
        var log: [String] = []
        var finishes: [URL?] = []
        var failures: [(url: URL?, error: String)] = []
        var commits = 0
        var actions: [NavigationAction] = []
        var responses: [NavigationResponse] = []
        var terminations: [WebProcessTerminationReason] = []
    }
    private let state = Mutex(State())
    private let actionPolicy = Mutex<@Sendable (NavigationAction) -> NavigationActionPolicy>({ _ in .allow })
    private let responsePolicy = Mutex<@Sendable (NavigationResponse) -> NavigationResponsePolicy>({
        $0.canShowMIMEType ? .allow : .download
    })

    var snapshot: State { state.withLock { $0 } }
    var log: [String] { snapshot.log }
    var finishCount: Int { snapshot.finishes.count }
    var actions: [NavigationAction] { snapshot.actions }
    var responses: [NavigationResponse] { snapshot.responses }
    var terminations: [WebProcessTerminationReason] { snapshot.terminations }
    var failures: [(url: URL?, error: String)] { snapshot.failures }
    func finished(at url: URL) -> Int { snapshot.finishes.filter { $0 == url }.count }

    func answerActions(_ policy: @escaping @Sendable (NavigationAction) -> NavigationActionPolicy) {
        actionPolicy.withLock { $0 = policy }
    }
    func answerResponses(_ policy: @escaping @Sendable (NavigationResponse) -> NavigationResponsePolicy) {
        responsePolicy.withLock { $0 = policy }
    }

    func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy {
        state.withLock { $0.actions.append(action) }
        return actionPolicy.withLock { $0 }(action)
    }
    func decidePolicy(for response: NavigationResponse) -> NavigationResponsePolicy {
        state.withLock { $0.responses.append(response) }
        return responsePolicy.withLock { $0 }(response)
    }
    func didStartNavigation(to url: URL?) { state.withLock { $0.log.append("start \(url?.absoluteString ?? "nil")") } }
    func didCommitNavigation(to url: URL?) {
        state.withLock {
            $0.commits += 1
            $0.log.append("commit \(url?.absoluteString ?? "nil")")
        }
    }
    func didFinishNavigation(to url: URL?) {
        state.withLock {
            $0.finishes.append(url)
            $0.log.append("finish \(url?.absoluteString ?? "nil")")
        }
    }
    func didFailNavigation(to url: URL?, error: String) {
        state.withLock {
            $0.failures.append((url, error))
            $0.log.append("fail \(url?.absoluteString ?? "nil")")
        }
    }
    func webProcessDidTerminate(reason: WebProcessTerminationReason) {
        state.withLock {
            $0.terminations.append(reason)
            $0.log.append("terminate")
        }
    }
}

/// Records dialogs, downloads and failed sub-resources; answers dialogs with a closure a case sets
/// (by default it keeps the reply, unanswered, for the case to answer).
final class RecordingUIDelegate: EngineUIDelegate {
    struct State {
        var dialogs: [ScriptDialog] = []
        var replies: [any ScriptDialogReply] = []
        var downloads: [EngineDownload] = []
        var subresourceFailures: [SubresourceLoadFailure] = []
    }
    private let state = Mutex(State())
    private let answer = Mutex<(@Sendable (ScriptDialog) -> ScriptDialogAnswer?)?>(nil)

    var dialogs: [ScriptDialog] { state.withLock { $0.dialogs } }
    var replies: [any ScriptDialogReply] { state.withLock { $0.replies } }
    var downloads: [EngineDownload] { state.withLock { $0.downloads } }
    var subresourceFailures: [SubresourceLoadFailure] { state.withLock { $0.subresourceFailures } }

    func answerDialogs(_ policy: @escaping @Sendable (ScriptDialog) -> ScriptDialogAnswer?) {
        answer.withLock { $0 = policy }
    }

    func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply) {
        state.withLock {
            $0.dialogs.append(dialog)
            $0.replies.append(reply)
        }
        if let given = answer.withLock({ $0 })?(dialog) { reply.answer(given) }
    }
    func didRecognizeDownload(_ download: EngineDownload) { state.withLock { $0.downloads.append(download) } }
    func didFailSubresourceLoad(_ failure: SubresourceLoadFailure) {
        state.withLock { $0.subresourceFailures.append(failure) }
    }
}

/// Serves the case's pages and routes, and records what the engine asked of it.
final class ConformanceSchemeHandler: SchemeHandler {
    typealias Route = @EngineActor @Sendable (any SchemeTask) -> Void
    struct State {
        var routes: [String: Route] = [:]
        var requests: [EngineRequest] = []
        var stopped: [String] = []
        var bodyQuestions: [EngineRequest] = []
    }
    private let state = Mutex(State())
    private let bodyPolicy = Mutex<@Sendable (EngineRequest) -> Bool>({ _ in true })
    private let bodyLimit = Mutex(RequestBodyLimit.defaultMaximum)

    var requests: [EngineRequest] { state.withLock { $0.requests } }
    /// Paths of the tasks the engine stopped, in order.
    var stopped: [String] { state.withLock { $0.stopped } }
    var bodyQuestions: [EngineRequest] { state.withLock { $0.bodyQuestions } }
    func requests(to path: String) -> [EngineRequest] { requests.filter { $0.url.path == path } }

    /// Answers `path` with `route` (any query is ignored).
    func route(_ path: String, _ route: @escaping Route) { state.withLock { $0.routes[path] = route } }

    func serve(path: String, contentType: String, body: Data, status: Int = 200, headers: [String: String] = [:]) {
        var merged = headers
        merged["Content-Type"] = contentType
        let all = merged
        route(path) { task in task.respond(status: status, headers: all, body: body) }
    }

    func readBodies(_ policy: @escaping @Sendable (EngineRequest) -> Bool) { bodyPolicy.withLock { $0 = policy } }
    func limitBodies(to bytes: Int) { bodyLimit.withLock { $0 = bytes } }
    var maximumBodySize: Int { bodyLimit.withLock { $0 } }

    func start(_ task: any SchemeTask) {
        let route = state.withLock { state -> Route? in
            state.requests.append(task.request)
            return state.routes[task.request.url.path]
        }
        guard let route else {
            task.fail(.notFound(task.request.url.path))
            return
        }
        route(task)
    }

    func stop(_ task: any SchemeTask) {
        state.withLock { $0.stopped.append(task.request.url.path) }
    }

    func mayReadBody(of request: EngineRequest) -> Bool {
        state.withLock { $0.bodyQuestions.append(request) }
        return bodyPolicy.withLock { $0 }(request)
    }
}
