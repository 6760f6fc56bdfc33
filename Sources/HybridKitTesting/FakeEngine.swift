import Foundation
import HybridKit
import Synchronization

/// A `WebEngine` on the engine's actor (`EngineActor`: the main actor on Apple platforms) that loads nothing and
/// records what it is asked, for unit tests of code written against the port (containers, pages, bridges,
/// features) without a real engine. Tests read what the core did through the recorded properties and play the
/// page's part with ``deliver(_:reply:)``.
@EngineActor
public final class FakeEngine: WebEngine {

    /// User scripts in the order they were added (removals take the first equal one, as the port says).
    public var userScripts: [UserScript] = []
    public var handlers: [String: (handler: any ScriptMessageHandler, replies: Bool)] = [:]
    /// Every script evaluated, with or without its result, oldest first.
    public var evaluations: [String] = []
    /// What ``url`` returns; nothing changes it but the test.
    public var currentURL: URL? = URL(string: "https://app.example")
    /// What ``title`` returns.
    public var currentTitle: String?
    public weak var delegate: (any NavigationDelegate)?
    public weak var ui: (any EngineUIDelegate)?

    public var loadedRequests: [EngineRequest] = []
    public var stops = 0
    /// Loads asked for, in order: "load <url>", "html <base>", "file <url>", "reload", "stop".
    public var loadLog: [String] = []
    /// Answers scripts when set (nil result: `undefined`; a throw: a JavaScript error). Unset, every script
    /// evaluates to `undefined`.
    public var evaluationResult: (@EngineActor (String) throws(EngineError) -> String?)?
    public var closed = false
    public var clearedData: [WebsiteDataTypes] = []
    /// The one cookie store this engine has, as real engines keep one per view (or per context).
    public nonisolated let cookies: FakeCookieStore
    // Read from any thread by the core (``verifiesMessageFrames`` is nonisolated), so kept behind a lock.
    private nonisolated let verifies = Mutex(false)

    public init(cookies: FakeCookieStore = FakeCookieStore()) {
        self.cookies = cookies
    }

    /// What ``verifiesMessageFrames`` reports: set it to play an engine that vouches for each message's frame.
    public nonisolated var verifiesFrames: Bool {
        get { verifies.withLock { $0 } }
        set { verifies.withLock { $0 = newValue } }
    }

    public func load(_ request: EngineRequest) throws(EngineError) {
        loadedRequests.append(request)
        loadLog.append("load \(request.url.absoluteString)")
    }
    public func loadHTML(_ html: String, baseURL: URL?) {
        loadLog.append("html \(baseURL?.absoluteString ?? "nil")")
    }
    /// Documents shown by ``loadSimulatedRequest(_:response:responseData:)``, oldest first.
    public var simulatedLoads: [(request: EngineRequest, response: SchemeResponse, body: Data)] = []
    /// Set to play an engine that cannot carry a simulated load (it throws this and loads nothing).
    public var simulatedLoadRefusal: EngineError?
    public func loadSimulatedRequest(
        _ request: EngineRequest, response: SchemeResponse, responseData: Data
    ) throws(EngineError) {
        if let refusal = simulatedLoadRefusal { throw refusal }
        simulatedLoads.append((request, response, responseData))
        loadLog.append("simulated \(request.url.absoluteString)")
    }
    public func loadFile(_ fileURL: URL, allowingReadAccessTo directory: URL) {
        loadLog.append("file \(fileURL.absoluteString)")
    }
    /// Set to play an engine whose process can start ahead of the first load (WebKitGTK's): then
    /// ``startWebProcess()`` logs `start process` when nothing was loaded yet (``loadLog`` is empty).
    public var startsWebProcess = false
    public func startWebProcess() -> Bool {
        guard startsWebProcess, loadLog.isEmpty else { return false }
        loadLog.append("start process")
        return true
    }
    public func reload() { loadLog.append("reload") }
    public func stopLoading() {
        stops += 1
        loadLog.append("stop")
    }
    public var url: URL? { currentURL }
    public var title: String? { currentTitle }
    public nonisolated func evaluateJavaScript(_ script: String) async throws(EngineError) -> String? {
        try await answer(script)
    }
    private func answer(_ script: String) throws(EngineError) -> String? {
        evaluations.append(script)
        return try evaluationResult?(script)
    }
    public func evaluateJavaScriptIgnoringResult(_ script: String) {
        evaluations.append(script)
    }
    /// One page function called with arguments (`WebEngine.callAsyncJavaScript(_:arguments:)`), as recorded.
    public struct FunctionCall: Sendable, Equatable {
        public var body: String
        public var arguments: [String: JavaScriptArgument]
    }
    /// Every page function called with arguments, with or without its result, oldest first.
    public var functionCalls: [FunctionCall] = []
    /// Answers function calls when set, as ``evaluationResult`` answers scripts; unset, they return `undefined`.
    public var functionCallResult: (@EngineActor (FunctionCall) throws(EngineError) -> String?)?
    public func callAsyncJavaScript(_ body: String, arguments: [String: JavaScriptArgument])
        async throws(EngineError) -> String?
    {
        try answer(FunctionCall(body: body, arguments: arguments))
    }
    private func answer(_ call: FunctionCall) throws(EngineError) -> String? {
        functionCalls.append(call)
        return try functionCallResult?(call)
    }
    public func callAsyncJavaScriptIgnoringResult(_ body: String, arguments: [String: JavaScriptArgument]) {
        functionCalls.append(FunctionCall(body: body, arguments: arguments))
    }
    public func addUserScript(_ script: UserScript) {
        userScripts.append(script)
    }
    public func removeUserScript(_ script: UserScript) {
        if let index = userScripts.firstIndex(of: script) { userScripts.remove(at: index) }
    }
    public func removeAllUserScripts() { userScripts.removeAll() }
    public func addScriptMessageHandler(_ handler: any ScriptMessageHandler, name: String, replies: Bool) {
        handlers[name] = (handler, replies)
    }
    public func removeScriptMessageHandler(name: String) {
        handlers[name] = nil
    }
    public nonisolated var supportsMessageReplies: Bool { true }
    public nonisolated var verifiesMessageFrames: Bool { verifiesFrames }
    /// Accepts every scheme and keeps no handler: the fake loads nothing.
    /// The handlers the page's schemes were given, by scheme.
    public var schemeHandlers: [String: any SchemeHandler] = [:]
    public func setSchemeHandler(_ handler: any SchemeHandler, forScheme scheme: String) throws(EngineError) {
        schemeHandlers[scheme] = handler
    }
    public nonisolated var cookieStore: any EngineCookieStore { cookies }
    public var navigationDelegate: (any NavigationDelegate)? {
        get { delegate }
        set { delegate = newValue }
    }
    /// Always nil, and setting it does nothing: no test so far needs a user agent.
    public var customUserAgent: String? {
        get { nil }
        set {}
    }
    /// Does nothing: a test plays a crash by calling the delegate's `webProcessDidTerminate(reason:)` itself.
    public nonisolated func terminateWebProcess() {}
    /// An empty PNG: there is nothing to paint.
    public nonisolated func snapshotPNG() async throws(EngineError) -> Data { Data() }
    public var uiDelegate: (any EngineUIDelegate)? {
        get { ui }
        set { ui = newValue }
    }
    public func close() { closed = true }
    public nonisolated func clearWebsiteData(_ types: WebsiteDataTypes, modifiedSince: Date?) async throws(EngineError)
    {
        await EngineActor.run { clearedData.append(types) }
    }
    /// The fake keeps no history, so pools never reuse a view that navigated.
    public func historySnapshot() -> Data? { nil }
    public func restoreHistory(_ snapshot: Data) -> Bool { false }
    public var historyLength: Int? { nil }

    /// Hands `message` to the handler registered under its name, as the engine would when a page posts it;
    /// nothing when no handler has that name (a page's `postMessage` to it would throw).
    public func deliver(_ message: ScriptMessage, reply: (any ScriptMessageReply)? = nil) {
        handlers[message.name]?.handler.didReceive(message, reply: reply)
    }
}

/// Records how a reply-capable script message was settled.
public final class RecordingReply: ScriptMessageReply, Sendable {
    private let settled = Mutex<(resolved: [String], rejected: [String])>(([], []))

    public init() {}

    /// Every `resolve(json:)`, oldest first. (A real reply takes the first call only; recording all of them
    /// lets a test see a second one that should not have happened.)
    public var resolved: [String] { settled.withLock { $0.resolved } }
    public var rejected: [String] { settled.withLock { $0.rejected } }
    public func resolve(json: String) { settled.withLock { $0.resolved.append(json) } }
    public func reject(message: String) { settled.withLock { $0.rejected.append(message) } }
}
