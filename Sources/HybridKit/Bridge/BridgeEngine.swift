import Foundation
import Logging

/// The native side of the bridge for one web view: reads page messages, runs module methods, answers,
/// sends events, and calls JavaScript handlers.
///
/// On the engine's actor, so it talks to the engine without hops and synchronous methods answer inline. Results bound for the main frame are batched:
/// the answers to one post, or everything else produced in one turn of the engine's loop, go out in one
/// evaluation.
@EngineActor
public final class BridgeEngine {
    public nonisolated let modules: ModuleRegistry
    /// Shared by the modules of the page (see ``PageContext``).
    public nonisolated let page: PageContext
    public nonisolated let configuration: BridgeConfiguration

    weak var engine: (any WebEngine)?
    let parser: InboundMessageParser
    let logger = Logger(label: "hybrid.bridge")
    /// Refusals already logged (see `reportRefusal`).
    var reportedRefusals = Set<String>()
    private var isReady: Bool
    var isClosed = false
    /// Documents that said hello before the bridge was ready, answered by ``markReady()``.
    private var waitingHellos: [(token: String, sender: Sender, reply: (any ScriptMessageReply)?)] = []
    /// Posts received and not yet handled, oldest first (see ``handleBacklog(until:)``).
    private var backlog: [PendingPost] = []
    /// Handling page messages gets this much of each turn of the engine's loop (about a quarter of a frame).
    static let turnBudget: Duration = .milliseconds(4)
    /// Messages handled in a turn before the budget is looked at.
    static let minimumPerTurn = 64
    /// Starts the prompt text of a synchronous call (`H1sync <key>\n`). Only the runtime knows the key, so a
    /// page's own `prompt()` never reaches the bridge, whatever it writes; who is calling is still decided by
    /// the frame the engine names, never by the text.
    let syncPrefix: String
    /// Main-frame messages waiting to go out in one evaluation.
    private var outbox: Outbox
    /// Calls whose method runs in a task, until it (or its deadline) answers.
    var calls: [CallKey: PendingCall] = [:]
    /// Synchronous calls whose method runs off the page's turn; their page is blocked until they answer.
    var syncCalls: [Int: PendingSync] = [:]
    var nextSyncID = 0
    var streams: StreamTable
    private var publishedState: PublishedState
    /// Rebuilds the document-start copy of published state when the modules or their access change.
    private let registryObservation: ModuleRegistryObservation
    /// The JSON arguments held by calls that answer later (``BridgeLimits/maxPendingArgumentBytes``).
    nonisolated let argumentBudget: ArgumentBudget
    /// Whether the budget's refusal was logged (once per bridge).
    var reportedArgumentBudget = false
    private var jsCalls = JavaScriptCalls()
    var statistics = BridgeStatistics()
    var metrics = BridgeCallMetrics()
    /// Bytes answered to pages, until they fetch them.
    nonisolated let redemptions: ByteRedemptions
    /// The bridge's scheme for bytes; nil when the engine would not take it (binary values are then refused).
    let bytesHandler: BridgeBytesSchemeHandler?
    /// Binary calls admitted and waiting for their bytes, by upload id.
    var awaitingUploads: [String: AwaitingUpload] = [:]
    /// The bytes each admitted binary call announced, kept while the call is pending (uploading, or its method
    /// holding them); entries of calls no longer pending are dropped at the next admission.
    var binaryBytesByCall: [CallKey: Int] = [:]
    /// The security origin of the main frame's current document, as it said hello: events' bytes are for it.
    var mainDocumentOrigin: String?

    struct PendingCall {
        let task: Task<Void, Never>
        let reply: (any ScriptMessageReply)?
        /// A binary call waiting for its bytes: the upload's id.
        var upload: String? = nil
        /// A binary call whose bytes arrived: the upload it answers through, readable by `answerOrigin`.
        var answerTask: (any SchemeTask)? = nil
        var answerOrigin: String? = nil
    }

    struct PendingSync {
        let task: Task<Void, Never>
        let reply: any ScriptDialogReply
    }

    /// A post being handled: main-frame posts are read a message at a time (see ``handleBacklog(until:)``).
    private struct PendingPost {
        private var rest: Substring.UTF8View?
        private var single: InboundMessage?
        let frame: FrameInfo?
        let reply: (any ScriptMessageReply)?

        init(rest: Substring.UTF8View, frame: FrameInfo?) {
            self.rest = rest
            self.frame = frame
            reply = nil
        }

        init(single: InboundMessage, frame: FrameInfo?, reply: any ScriptMessageReply) {
            self.single = single
            self.frame = frame
            self.reply = reply
        }

        /// The next message; nil when the post is done.
        mutating func next(_ parser: InboundMessageParser) -> Result<InboundMessage, InboundMessageError>? {
            if let message = single {
                single = nil
                return .success(message)
            }
            guard var bytes = rest, let parsed = parser.parseNext(&bytes) else { return nil }
            rest = bytes
            return parsed
        }
    }

    /// Attaches a bridge to `engine`: registers its message handlers and injects the runtime at document
    /// start. Call on the engine's actor, before loading the page.
    public init(
        engine: any WebEngine, modules: ModuleRegistry = ModuleRegistry(), page: PageContext = PageContext(),
        configuration: BridgeConfiguration = BridgeConfiguration()
    ) throws {
        self.engine = engine
        self.modules = modules
        self.page = page
        self.configuration = configuration
        self.parser = InboundMessageParser(
            limits: configuration.limits, freeFormMethodModule: configuration.wvjbModuleName)
        self.isReady = configuration.startsReady
        let deliveryKey = Self.randomHex(16)
        self.outbox = Outbox(deliveryKey: deliveryKey, receiverName: configuration.receiverName)
        self.publishedState = PublishedState(deliveryKey: deliveryKey, receiverName: configuration.receiverName)
        self.streams = StreamTable(window: configuration.limits.streamWindow)
        let redemptions = ByteRedemptions(limits: configuration.limits)
        self.redemptions = redemptions
        let link = BridgeLink()
        self.argumentBudget = ArgumentBudget(limit: configuration.limits.maxPendingArgumentBytes)
        // Who may read published state follows the modules' access, which a remote configuration changes at run
        // time: new documents must not start with values their origin may no longer read.
        self.registryObservation = modules.observeChanges { [link] in
            guard let bridge = link.bridge else { return }
            Task { await bridge.modulesDidChange() }
        }
        let bytesHandler = BridgeBytesSchemeHandler(link: link, redemptions: redemptions, limits: configuration.limits)
        do {
            try engine.setSchemeHandler(bytesHandler, forScheme: configuration.bytesScheme)
            self.bytesHandler = bytesHandler
        } catch {
            self.bytesHandler = nil
            Logger(label: "hybrid.bridge").warning(
                "binary values are off: the engine did not take the bridge's scheme '\(configuration.bytesScheme)' (\(error)); on WKWebView add it to WKEngineFactory.schemes (or WKEngine's schemes), or set BridgeConfiguration.bytesScheme to a scheme the engine serves"
            )
        }
        let syncKey = Self.randomHex(16)
        self.syncPrefix = "H1sync \(syncKey)\n"
        let script = try BridgeRuntimeScript.make(
            configuration: configuration, relaySecret: Self.randomHex(16), deliveryKey: deliveryKey,
            syncKey: syncKey, runtimeID: Self.randomHex(8),
            bytesURL: self.bytesHandler == nil
                ? nil : "\(configuration.bytesScheme)://\(BridgeBytesSchemeHandler.host)/")
        let receiver = MessageReceiver()
        engine.addUserScript(UserScript(source: script, injectionTime: .documentStart, allFrames: true))
        engine.addScriptMessageHandler(receiver, name: configuration.handlerName, replies: false)
        engine.addScriptMessageHandler(
            receiver, name: configuration.replyHandlerName, replies: engine.supportsMessageReplies)
        receiver.bridge = self
        link.bridge = self
    }

    private func modulesDidChange() {
        guard !isClosed, !publishedState.names.isEmpty, let engine else { return }
        publishedState.refreshScript(in: engine, modules: modules)
    }

    // MARK: Receiving

    /// The handler object registered with the engine. It holds the bridge weakly, so an engine never keeps
    /// a bridge (and its modules) alive — the leak a content controller causes by retaining its message handlers.
    private final class MessageReceiver: ScriptMessageHandler {
        weak var bridge: BridgeEngine?

        func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
            guard let bridge else {
                reply?.reject(message: "the bridge is closed")
                return
            }
            bridge.receive(message, reply: reply)
        }
    }

    func receive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
        statistics.received += 1
        guard !isClosed else {
            reply?.reject(message: "the bridge is closed")
            return
        }
        guard case .string(let text) = message.body else {
            refuse(InboundMessageError(error: .badMessage("a bridge message must be a string")), reply: reply)
            return
        }
        if message.frame == nil, engine?.verifiesMessageFrames == true {
            // The engine stamps every message the runtime sends; an unstamped one was posted around it.
            refuse(InboundMessageError(error: .denied("message did not come through the bridge runtime")), reply: reply)
            return
        }
        let bytes: Substring.UTF8View
        switch parser.checkSize(text) {
        case .success(let checked): bytes = checked
        case .failure(let error):
            refuse(error, reply: reply)
            return
        }
        // A reply settles once, so a reply-capable post carries one message; main-frame posts carry a batch.
        if let reply {
            switch Result(catching: { () throws(InboundMessageError) in try parser.parse(text) }) {
            case .success(let inbound): backlog.append(PendingPost(single: inbound, frame: message.frame, reply: reply))
            case .failure(let error):
                refuse(error, reply: reply)
                return
            }
        } else {
            backlog.append(PendingPost(rest: bytes, frame: message.frame))
        }
        // A post waits behind earlier posts, never overtakes them; with none waiting it is handled now.
        if backlog.count == 1 { handleBacklog(until: .now + Self.turnBudget) }
    }

    /// Handles waiting posts until `deadline`, then leaves the rest for a later turn of the engine's loop.
    ///
    /// That loop is shared by every web view of the app: a page that issues 200,000 calls at once must not
    /// keep it from painting and answering the others for seconds. While posts wait, new ones queue behind
    /// them (the engine may hand over many posts in one turn: together they get one budget), and the rest
    /// is handled in background-priority turns, which the engine's actor runs after painting and input.
    private func handleBacklog(until deadline: ContinuousClock.Instant) {
        var handled = 0
        while !backlog.isEmpty {
            let (frame, reply) = (backlog[backlog.startIndex].frame, backlog[backlog.startIndex].reply)
            guard let inbound = backlog[backlog.startIndex].next(parser) else {
                backlog.removeFirst()
                continue
            }
            switch inbound {
            case .success(let message): handle(message, sender: Sender(message, frame: frame), reply: reply)
            case .failure(let error): refuse(error, reply: reply)
            }
            handled += 1
            // A turn always makes some progress, so an ordinary post (a few calls) is answered before its
            // handler returns however slow the machine is at that moment.
            if handled >= Self.minimumPerTurn, ContinuousClock.now >= deadline { break }
        }
        if !backlog.isEmpty {
            Task(priority: .background) { self.handleBacklog(until: .now + Self.turnBudget) }
        }
        // What was handled (answers of synchronous methods, events they emitted) leaves now, in one
        // evaluation: waiting for the end of the loop's turn would add a hop to every sequential call, and
        // the page already sends the calls of one turn together.
        if !outbox.isEmpty { flush() }
    }

    private func handle(_ inbound: InboundMessage, sender: Sender, reply: (any ScriptMessageReply)?) {
        if !sender.verified, inbound.frame == .main, let problem = mainFrameOriginProblem(inbound.origin) {
            refuse(
                InboundMessageError(error: .denied(problem), id: inbound.id, token: inbound.token, frame: .main),
                reply: reply)
            return
        }
        switch inbound.kind {
        case .hello:
            if sender.isMainFrame, reply == nil {
                mainDocumentOrigin = sender.origin
                mainDocumentSaidHello(token: inbound.token)
            }
            hello(token: inbound.token, sender: sender, reply: reply)
        case .call: call(inbound, sender: sender, reply: reply)
        case .binaryCall: binaryCall(inbound, sender: sender, reply: reply)
        case .jsReply: jsReply(inbound, sender: sender, reply: reply)
        case .stream: openStream(inbound, sender: sender, reply: reply)
        case .pull: pullStream(inbound, reply: reply)
        case .cancel: cancelStream(CallKey(token: inbound.token, id: inbound.id), reply: reply)
        case .bye: documentWentAway(token: inbound.token, reply: reply)
        }
    }

    /// The document with `token` went away for good: its calls and streams end now, not when the main frame next
    /// navigates (a frame that reloads or is removed would otherwise keep its streams' producers, buffers and
    /// slots). Only that document knows its token. A binary call still waiting for its bytes ends at its own expiry.
    private func documentWentAway(token: String, reply: (any ScriptMessageReply)?) {
        for (key, call) in calls where key.token == token && call.upload == nil {
            calls[key] = nil
            call.task.cancel()
            statistics.abandoned += 1
        }
        streams.cancelAll(token: token)
        reply?.resolve(json: "[]")
    }

    /// Main-frame messages arrive on the non-reply handler; their claimed origin must be the one of the
    /// document the engine shows. (A subframe can post there too; this is what stops it from posing as the
    /// main document of another origin.)
    func mainFrameOriginProblem(_ claimed: String) -> String? {
        guard let url = engine?.url, let actual = Self.origin(of: url) else { return nil }
        return actual == claimed.lowercased() ? nil : "message claims origin \(claimed) but the page is \(actual)"
    }

    private func refuse(_ failure: InboundMessageError, reply: (any ScriptMessageReply)?) {
        statistics.refused += 1
        metrics.refused(failure.error.code)
        logger.debug("refused page message", metadata: ["error": "\(failure.error)"])
        let message =
            if let id = failure.id, let token = failure.token {
                OutboundMessage.failure(token: token, id: id, error: failure.error)
            } else {
                OutboundMessage.unattributed(failure.error)
            }
        deliver(message, reply: reply, frame: failure.frame ?? .main)
    }

    /// Native → page calls made while no main-frame document was listening go to this one.
    private func mainDocumentSaidHello(token: String) {
        for message in jsCalls.mainDocumentSaidHello(token: token) { enqueue(message) }
    }

    private func hello(token: String, sender: Sender, reply: (any ScriptMessageReply)?) {
        guard isReady else {
            waitingHellos.append((token, sender, reply))
            return
        }
        let state = publishedState.json(for: sender, modules: modules)
        deliver(
            OutboundMessage.ready(
                token: token,
                catalog: modules.catalog(
                    origin: sender.origin, isMainFrame: sender.isMainFrame, verified: sender.verified),
                state: state), reply: reply,
            frame: reply == nil ? .main : .sub)
    }

    /// Tells pages the native side is ready; their queued calls go out. Only needed with
    /// ``BridgeConfiguration/startsReady`` false.
    public func markReady() {
        guard !isReady else { return }
        isReady = true
        let hellos = waitingHellos
        waitingHellos.removeAll()
        for hello in hellos { self.hello(token: hello.token, sender: hello.sender, reply: hello.reply) }
    }

    // MARK: Calls

    /// A call: answered through the post's reply, or else in the main frame's next batch.
    private func call(_ inbound: InboundMessage, sender: Sender, reply: (any ScriptMessageReply)?) {
        let key = CallKey(token: inbound.token, id: inbound.id)
        invoke(inbound, sender: sender, started: .now, answer: .delivered(key, frame: inbound.frame, reply: reply))
    }

    // MARK: Published state

    /// Publishes `value` as `name` for the frames that may call `module` (its access rules decide who reads
    /// it): pages read it synchronously with `hybrid.state.get(name)` from document start, and hear
    /// `hybrid.state.on(name, …)` when it changes. Publishing an equal value again does nothing.
    ///
    /// Modules whose origins are a predicate cannot be judged by the page runtime at document start; their
    /// state arrives when the bridge is ready (`hybrid.ready`), checked here against the frame the engine names.
    public func publishState<Value: Encodable>(_ name: String, _ value: Value, module: String) throws(BridgeError) {
        guard !isClosed else { throw BridgeError(.closed, "the bridge is closed") }
        try PublishedState.validate(name, module: module, in: modules)
        let json = try BridgeMethod.encode(value)
        guard try publishedState.set(name, json: json, module: module, limit: configuration.limits.maxMessageBytes)
        else { return }
        stateDidChange()
    }

    /// Withdraws `name`: pages read `undefined` from then on.
    public func removeState(_ name: String) {
        guard publishedState.remove(name) else { return }
        stateDidChange()
    }

    /// The names of the published state.
    public var stateNames: [String] { publishedState.names }

    private func stateDidChange() {
        if let engine { publishedState.refreshScript(in: engine, modules: modules) }
        // No value travels with the news: the main frame asks again, and its subframes too, each through its
        // own stamped channel, so each gets only what it may read.
        guard !isClosed else { return }
        enqueue(OutboundMessage.stateChanged)
    }

    // MARK: Delivery

    func deliver(_ message: String, reply: (any ScriptMessageReply)?, frame: InboundMessage.Frame) {
        if let reply {
            reply.resolve(json: OutboundMessage.batch([message]))
        } else {
            enqueue(message)
        }
    }

    /// Queues a message for the main frame; the whole queue goes out in one evaluation at the end of the
    /// post being handled, or else at the end of this turn of the engine's loop.
    private func enqueue(_ message: String) {
        switch outbox.append(message) {
        case .nothing: break
        case .flushNow: flush()
        case .scheduleFlush: Task { self.flush() }
        }
    }

    private func flush() {
        guard let delivery = outbox.take(functionCallThreshold: configuration.functionCallThreshold), let engine
        else { return }
        statistics.evaluations += 1
        switch delivery {
        case .evaluate(let script): engine.evaluateJavaScriptIgnoringResult(script)
        case .call(let body, let arguments): engine.callAsyncJavaScriptIgnoringResult(body, arguments: arguments)
        }
    }

    // MARK: Events and calls into the page

    /// Sends `name` with `data` to every listener in every frame of the page.
    public func emit<Data: Encodable>(_ name: String, _ data: Data) throws(BridgeError) {
        guard !isClosed else { throw BridgeError(.closed, "the bridge is closed") }
        statistics.events += 1
        // Bytes in an event are for the main frame's document, whose runtime fetches them and relays the values.
        let outgoing = mainDocumentOrigin.flatMap { origin in
            bytesHandler.map { _ in BinaryCoding.Outgoing(store: redemptions, owner: origin) }
        }
        let encoded = BinaryCoding.outgoing.withValue(outgoing) {
            Result { () throws(BridgeError) in try BridgeMethod.encode(data) }
        }
        let json = try encoded.get()
        enqueue(OutboundMessage.event(name: name, json: json, bytes: outgoing?.didRegister == true))
    }

    /// Calls the page's handler `name` (registered with `hybrid.handle` or WVJB's `registerHandler`)
    /// and returns its answer.
    public func callJavaScript<Argument: Encodable, Answer: Decodable>(
        _ name: String, _ argument: Argument, as answer: Answer.Type = JSONValue.self,
        timeout: Duration = .seconds(30)
    ) async throws -> Answer {
        guard !isClosed else { throw BridgeError(.closed, "the bridge is closed") }
        let id = jsCalls.freshID()
        let json = try BridgeMethod.encode(argument)
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            self?.resumeJSCall(
                id, with: .failure(BridgeError(.timeout, "page handler '\(name)' did not answer within \(timeout)")))
        }
        defer { timer.cancel() }
        let text: String = try await withCheckedThrowingContinuation { continuation in
            if let message = jsCalls.add(id, handler: name, json: json, continuation: continuation) { enqueue(message) }
        }
        return try BridgeMethod.decode(Answer.self, from: Substring(text).utf8)
    }

    private func jsReply(_ inbound: InboundMessage, sender: Sender, reply: (any ScriptMessageReply)?) {
        guard jsCalls.accepts(inbound.id, token: inbound.token, isMainFrame: sender.isMainFrame) else {
            refuse(
                InboundMessageError(error: .denied("this frame has no call of native to answer with that id")),
                reply: reply)
            return
        }
        resumeJSCall(inbound.id, with: JavaScriptCalls.outcome(ofReply: Substring(inbound.payload).utf8))
    }

    private func resumeJSCall(_ id: Int, with outcome: Result<String, any Error>) {
        jsCalls.resume(id, with: outcome)
    }

    // MARK: Lifecycle

    /// The main frame committed a new document: every call of the old one fails with `navigated`
    /// (its handler is cancelled and its result, if any, is dropped), exactly once.
    public func pageDidNavigate() {
        jsCalls.mainDocumentWentAway()
        failEverything(BridgeError(.navigated, "the page navigated away before the call finished"))
    }

    /// Detaches from the engine and fails everything pending with `closed`. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        registryObservation.cancel()
        failEverything(BridgeError(.closed, "the bridge was closed"))
        if let engine {
            engine.removeScriptMessageHandler(name: configuration.handlerName)
            engine.removeScriptMessageHandler(name: configuration.replyHandlerName)
        }
        engine = nil
    }

    private func failEverything(_ error: BridgeError) {
        let pending = calls
        calls.removeAll()
        for (key, call) in pending {
            call.task.cancel()
            statistics.abandoned += 1
            if let task = call.answerTask, let owner = call.answerOrigin {
                // A binary call answers through its upload, whatever frame made it.
                Self.answer(
                    task, owner: owner,
                    OutboundMessage.batch([OutboundMessage.failure(token: key.token, id: key.id, error: error)]))
                continue
            }
            // Subframe callers still hold a reply: tell them. Main-frame documents are gone (or going):
            // their runtime already rejected these calls on pagehide.
            call.reply?.resolve(
                json: OutboundMessage.batch([OutboundMessage.failure(token: key.token, id: key.id, error: error)]))
        }
        let syncPending = syncCalls
        syncCalls.removeAll()
        for (_, call) in syncPending {
            call.task.cancel()
            statistics.abandoned += 1
            call.reply.answer(.text(OutboundMessage.syncFailure(error)))
        }
        streams.failAll(error)
        jsCalls.failAll(error)
        // Bytes waiting for the document that went away, and uploads it would have sent, are freed now.
        forgetUploads()
        redemptions.removeAll()
        outbox.discard()
        waitingHellos.removeAll()
        // Posts of the document that went away: its frames' replies are told, nothing else is run.
        let posts = backlog
        backlog.removeAll()
        for post in posts { post.reply?.reject(message: error.message) }
    }

    /// Counters for tests, benchmarks and telemetry.
    public var stats: BridgeStatistics { statistics }

    /// Calls currently running natively.
    public var pendingCallCount: Int { calls.count }

    // MARK: Helpers

    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased() else { return nil }
        guard let host = url.host?.lowercased() else { return scheme == "file" ? "file://" : nil }
        let defaultPort = ["http": 80, "https": 443][scheme]
        if let port = url.port, port != defaultPort { return "\(scheme)://\(host):\(port)" }
        return "\(scheme)://\(host)"
    }

    private static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
