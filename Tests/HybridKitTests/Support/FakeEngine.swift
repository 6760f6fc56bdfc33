import Foundation
import HybridKit

/// An engine that runs on the main actor and records what the core asks of it. For unit tests only.
@MainActor
final class FakeEngine: WebEngine {
    nonisolated var executor: UnownedSerialExecutor { MainActor.sharedUnownedExecutor }

    var userScripts: [UserScript] = []
    var handlers: [String: (handler: any ScriptMessageHandler, replies: Bool)] = [:]
    var evaluations: [String] = []
    var currentURL: URL? = URL(string: "https://app.example")
    weak var delegate: (any NavigationDelegate)?

    var loadedRequests: [EngineRequest] = []
    var stops = 0
    /// Loads the core asked for, in order: "load <url>", "html <base>", "file <url>", "reload", "stop".
    var loadLog: [String] = []
    var currentTitle: String?
    /// Answers scripts when set (nil result: `undefined`; a throw: a JavaScript error).
    var evaluationResult: (@MainActor (String) throws(EngineError) -> String?)?

    nonisolated func load(_ request: EngineRequest) throws(EngineError) {
        MainActor.assumeIsolated {
            loadedRequests.append(request)
            loadLog.append("load \(request.url.absoluteString)")
        }
    }
    nonisolated func loadHTML(_ html: String, baseURL: URL?) {
        MainActor.assumeIsolated { loadLog.append("html \(baseURL?.absoluteString ?? "nil")") }
    }
    nonisolated func loadFile(_ fileURL: URL, allowingReadAccessTo directory: URL) {
        MainActor.assumeIsolated { loadLog.append("file \(fileURL.absoluteString)") }
    }
    nonisolated func reload() { MainActor.assumeIsolated { loadLog.append("reload") } }
    nonisolated func stopLoading() {
        MainActor.assumeIsolated {
            stops += 1
            loadLog.append("stop")
        }
    }
    nonisolated var url: URL? { MainActor.assumeIsolated { currentURL } }
    nonisolated var title: String? { MainActor.assumeIsolated { currentTitle } }
    nonisolated func evaluateJavaScript(_ script: String) async throws(EngineError) -> String? {
        try await answer(script)
    }
    private func answer(_ script: String) throws(EngineError) -> String? {
        evaluations.append(script)
        return try evaluationResult?(script)
    }
    private func record(_ script: String) { evaluations.append(script) }
    nonisolated func evaluateJavaScriptIgnoringResult(_ script: String) {
        MainActor.assumeIsolated { evaluations.append(script) }
    }
    nonisolated func addUserScript(_ script: UserScript) { MainActor.assumeIsolated { userScripts.append(script) } }
    nonisolated func removeUserScript(_ script: UserScript) {
        MainActor.assumeIsolated {
            if let index = userScripts.firstIndex(of: script) { userScripts.remove(at: index) }
        }
    }
    nonisolated func removeAllUserScripts() { MainActor.assumeIsolated { userScripts.removeAll() } }
    nonisolated func addScriptMessageHandler(_ handler: any ScriptMessageHandler, name: String, replies: Bool) {
        MainActor.assumeIsolated { handlers[name] = (handler, replies) }
    }
    nonisolated func removeScriptMessageHandler(name: String) { MainActor.assumeIsolated { handlers[name] = nil } }
    nonisolated var supportsMessageReplies: Bool { true }
    nonisolated(unsafe) var verifiesFrames = false
    nonisolated var verifiesMessageFrames: Bool { verifiesFrames }
    var schemeHandlers: [String: any SchemeHandler] = [:]
    nonisolated func setSchemeHandler(_ handler: any SchemeHandler, forScheme scheme: String) throws(EngineError) {
        MainActor.assumeIsolated { schemeHandlers[scheme] = handler }
    }
    nonisolated var cookieStore: any EngineCookieStore { FakeCookieStore() }
    nonisolated var navigationDelegate: (any NavigationDelegate)? {
        get { MainActor.assumeIsolated { delegate } }
        set { MainActor.assumeIsolated { delegate = newValue } }
    }
    nonisolated var customUserAgent: String? {
        get { nil }
        set {}
    }
    nonisolated func terminateWebProcess() {}
    nonisolated func snapshotPNG() async throws(EngineError) -> Data { Data() }
    weak var ui: (any EngineUIDelegate)?
    nonisolated var uiDelegate: (any EngineUIDelegate)? {
        get { MainActor.assumeIsolated { ui } }
        set { MainActor.assumeIsolated { ui = newValue } }
    }
    var closed = false
    nonisolated func close() { MainActor.assumeIsolated { closed = true } }
    var clearedData: [WebsiteDataTypes] = []
    nonisolated func clearWebsiteData(_ types: WebsiteDataTypes, modifiedSince: Date?) async throws(EngineError) {
        await MainActor.run { clearedData.append(types) }
    }
    /// The fake keeps no history: pools never reuse a view that navigated.
    nonisolated func historySnapshot() -> Data? { nil }
    nonisolated func restoreHistory(_ snapshot: Data) -> Bool { false }
    nonisolated var historyLength: Int? { nil }

    /// Posts `body` as the page would, to handler `name`.
    /// Like a real engine, the fake vouches for the sending frame: by default the one the message names
    /// (its frame and origin fields); pass `frame` to post from another, or `unverified` to post as an engine
    /// that cannot identify frames (WebKitGTK without HybridKit's web-process extension).
    func post(
        _ body: ScriptMessage.Body, to name: String = "hybrid", reply: (any ScriptMessageReply)? = nil,
        frame: FrameInfo? = nil, unverified: Bool = false
    ) {
        let sender = unverified ? nil : frame ?? Self.namedFrame(body)
        handlers[name]?.handler.didReceive(ScriptMessage(name: name, body: body, frame: sender), reply: reply)
    }

    /// `H1 <kind> <id> <token> <frame> <origin> …`: the frame and origin a runtime message names.
    private static func namedFrame(_ body: ScriptMessage.Body) -> FrameInfo? {
        guard case .string(let text) = body else { return nil }
        let fields = text.prefix { $0 != "\n" }.split(separator: " ")
        guard fields.count >= 6, fields[0] == "H1" else { return nil }
        let origin = String(fields[5])
        return FrameInfo(url: URL(string: origin), securityOrigin: origin, isMainFrame: fields[4] == "main")
    }

    /// Every message delivered to the page so far, decoded from the batches, oldest first.
    func deliveredMessages() throws -> [[String: Any]] {
        try evaluations.flatMap { script -> [[String: Any]] in
            // `__hybridReceive(["<delivery key>", "<batch as JSON text>"])`: one JSON array of two strings.
            guard script.hasPrefix("__hybridReceive(["), script.hasSuffix("])") else { return [] }
            let arguments = String(script.dropFirst("__hybridReceive(".count).dropLast())
            guard let pair = try JSONSerialization.jsonObject(with: Data(arguments.utf8)) as? [String],
                pair.count == 2, pair[0].count == 32
            else { return [] }
            return try JSONSerialization.jsonObject(with: Data(pair[1].utf8)) as? [[String: Any]] ?? []
        }
    }
}

/// Records how a reply-capable message was settled.
final class RecordingReply: ScriptMessageReply, @unchecked Sendable {
    private(set) var resolved: [String] = []
    private(set) var rejected: [String] = []
    func resolve(json: String) { resolved.append(json) }
    func reject(message: String) { rejected.append(message) }

    func messages() throws -> [[String: Any]] {
        try resolved.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [[String: Any]] ?? [] }
    }
}

/// Builds page messages the way bridge.js does.
enum PageMessage {
    static let token = "0123456789abcdef"

    static func call(
        _ module: String, _ method: String, id: Int, args: String = "null", frame: String = "main",
        origin: String = "https://app.example", token: String = token
    ) -> ScriptMessage.Body {
        .string("H1 call \(id) \(token) \(frame) \(origin) \(module) \(method)\n\(args)")
    }

    static func hello(frame: String = "main", origin: String = "https://app.example", token: String = token)
        -> ScriptMessage.Body
    {
        .string("H1 hello 0 \(token) \(frame) \(origin) - -\n{}")
    }
}

/// Lets the main actor run queued work (the bridge flushes its batch in a later turn).
@MainActor
func settle(turns: Int = 20) async {
    for _ in 0..<turns { await Task.yield() }
}

@MainActor
func waitUntil(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try condition()
}
