import Foundation
import Logging

/// The native side of the bridge for one web view: reads page messages, runs module methods, answers,
/// sends events, and calls JavaScript handlers.
///
/// An actor that runs on the engine's own executor (GTK's thread, or the main thread), so it talks to the
/// engine without hops and synchronous methods answer inline. Results bound for the main frame are batched:
/// the answers to one post, or everything else produced in one turn of the engine's loop, go out in one
/// evaluation.
public actor BridgeEngine {
    public nonisolated let modules: ModuleRegistry
    /// Shared by the modules of the page (see ``PageContext``).
    public nonisolated let page: PageContext
    public nonisolated let configuration: BridgeConfiguration

    private nonisolated let executor: UnownedSerialExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor }

    private weak var engine: (any WebEngine)?
    private let parser: InboundMessageParser
    private let logger = Logger(label: "hybrid.bridge")
    /// Refusals already logged (see `reportRefusal`).
    private var reportedRefusals = Set<String>()
    private var isReady: Bool
    private var isClosed = false
    /// Documents that said hello before the bridge was ready, answered by ``markReady()``.
    private var waitingHellos: [(token: String, sender: Sender, reply: (any ScriptMessageReply)?)] = []
    private var calls: [PendingCallKey: PendingCall] = [:]
    private var outbox: [String] = []
    private var outboxBytes = 0
    private var flushScheduled = false
    /// A batch larger than this goes out at once rather than growing: one huge evaluation costs more
    /// (script parse, peak memory) than a few medium ones.
    private let maxBatchBytes = 1 << 20
    /// Native → page calls by id. Ids are random (a frame that could guess one could answer in the page's
    /// place), and an answer counts only from the main-frame document the call was sent to.
    private var jsCalls: [Int: PendingJSCall] = [:]
    /// Posts received and not yet handled, oldest first (see ``handleBacklog(until:)``).
    private var backlog: [PendingPost] = []
    /// Handling page messages gets this much of each turn of the engine's loop (about a quarter of a frame).
    static let turnBudget: Duration = .milliseconds(4)
    /// Messages handled in a turn before the budget is looked at.
    static let minimumPerTurn = 64
    /// The token of the main frame's current document, learnt from its hello; nil between a navigation and
    /// the new document's hello. Native → page calls are addressed to it.
    private var mainDocumentToken: String?
    /// Authenticates native's evaluations to the runtime: the page's own scripts can call the receiver
    /// function too, but cannot read this (it lives in the runtime's closure and in native's scripts only).
    private let deliveryKey: String
    /// Starts the prompt text of a synchronous call (`H1sync <key>\n`). Only the runtime knows the key, so a
    /// page's own `prompt()` never reaches the bridge, whatever it writes; who is calling is still decided by
    /// the frame the engine names, never by the text.
    private let syncPrefix: String
    /// Synchronous calls whose method runs off the page's turn; their page is blocked until they answer.
    private var syncCalls: [Int: PendingSync] = [:]
    private var nextSyncID = 0
    /// Published state by name: the module whose access decides who reads it, and the value as JSON.
    private var publishedState: [String: (module: String, json: String)] = [:]
    /// The document-start script carrying ``publishedState`` to new documents.
    private var stateScript: UserScript?
    /// Open streams by the page's token and call id.
    private var streams: [PendingCallKey: StreamState] = [:]
    private var statistics = BridgeStatistics()
    private var metrics = BridgeCallMetrics()

    private struct PendingCallKey: Hashable {
        let token: String
        let id: Int
    }

    private struct PendingCall {
        let task: Task<Void, Never>
        let reply: (any ScriptMessageReply)?
    }

    /// One stream: elements read ahead of the page (at most the window), the page's outstanding request for
    /// more, and the producer waiting for room.
    private struct StreamState {
        var task: Task<Void, Never>?
        let frame: InboundMessage.Frame
        var buffer: [String] = []
        /// Set once the method ended (success) or threw; delivered after the buffered elements.
        var end: Result<Void, BridgeError>?
        /// The page asked for up to this many elements and has not been answered yet.
        var pull: (count: Int, reply: (any ScriptMessageReply)?)?
        /// The producer, suspended until the page makes room.
        var room: CheckedContinuation<Void, Never>?
    }

    private struct PendingSync {
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

    private struct PendingJSCall {
        let continuation: CheckedContinuation<String, any Error>
        let handler: String
        let json: String
        /// The main-frame document the call was sent to; nil while it waits for one to say hello.
        var token: String?
    }

    /// What telemetry and the call observer need to know about a call when it is answered.
    private struct CallOrigin: Sendable {
        /// A module the host registered, or `-`: never a name the page made up.
        let module: String
        let started: ContinuousClock.Instant
        /// The call as the page made it, for ``BridgeConfiguration/callObserver`` (not the message itself,
        /// whose payload may be megabytes); nil before the message could be read.
        var requested: (module: String, method: String)? = nil
        var sender: Sender? = nil

        /// The call as the page named it, for log lines.
        var name: String { requested.map { "\($0.module).\($0.method)" } ?? module }
    }

    /// Attaches a bridge to `engine`: registers its message handlers and injects the runtime at document
    /// start. Call on the engine's executor, before loading the page.
    public init(
        engine: any WebEngine, modules: ModuleRegistry = ModuleRegistry(), page: PageContext = PageContext(),
        configuration: BridgeConfiguration = BridgeConfiguration()
    ) throws {
        self.engine = engine
        self.modules = modules
        self.page = page
        self.configuration = configuration
        self.executor = engine.executor
        self.parser = InboundMessageParser(
            limits: configuration.limits, freeFormMethodModule: configuration.wvjbModuleName)
        self.isReady = configuration.startsReady
        self.deliveryKey = Self.randomHex(16)
        let syncKey = Self.randomHex(16)
        self.syncPrefix = "H1sync \(syncKey)\n"
        let script = try BridgeRuntimeScript.make(
            configuration: configuration, relaySecret: Self.randomHex(16), deliveryKey: deliveryKey,
            syncKey: syncKey, runtimeID: Self.randomHex(8))
        let receiver = MessageReceiver()
        engine.addUserScript(UserScript(source: script, injectionTime: .documentStart, allFrames: true))
        engine.addScriptMessageHandler(receiver, name: configuration.handlerName, replies: false)
        engine.addScriptMessageHandler(
            receiver, name: configuration.replyHandlerName, replies: engine.supportsMessageReplies)
        receiver.bridge = self
    }

    // MARK: Receiving

    /// The handler object registered with the engine. It holds the bridge weakly, so an engine never keeps
    /// a bridge (and its modules) alive — the leak a content controller causes by retaining its message handlers.
    private final class MessageReceiver: ScriptMessageHandler, @unchecked Sendable {
        // Written once, before the engine can deliver anything; read on the engine's executor.
        weak var bridge: BridgeEngine?

        func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
            guard let bridge else {
                reply?.reject(message: "the bridge is closed")
                return
            }
            bridge.assumeIsolated { $0.receive(message, reply: reply) }
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
    /// is handled in background-priority turns, which the engine's executor runs after painting and input.
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

    /// Who sent a message: what the engine vouches for when it can, else what the page claims.
    struct Sender {
        let origin: String
        let isMainFrame: Bool
        let verified: Bool

        init(_ inbound: InboundMessage, frame: FrameInfo?) {
            if let frame {
                // The security origin, not the URL: a sandboxed frame of the app's own URL is `null`.
                origin = frame.securityOrigin
                isMainFrame = frame.isMainFrame
                verified = true
            } else {
                origin = inbound.origin
                isMainFrame = inbound.frame == .main
                verified = false
            }
        }
    }

    /// The method `sender`'s frame may call: the registry's answer for its origin, frame and verification.
    private func resolve(_ module: String, _ method: String, for sender: Sender) throws(BridgeError)
        -> ModuleRegistry.Target
    {
        do {
            return try modules.resolve(
                module: module, method: method, origin: sender.origin, isMainFrame: sender.isMainFrame,
                verified: sender.verified)
        } catch {
            reportRefusal(error, call: "\(module).\(method)", origin: sender.origin)
            throw error
        }
    }

    /// A call the page was refused is a warning the host sees (the page sees the error too), said once per call,
    /// origin and reason: a page that retries in a loop, or a hostile one trying names, cannot flood the log.
    private func reportRefusal(_ error: BridgeError, call: String, origin: String) {
        guard [.denied, .unknownModule, .unknownMethod].contains(error.code) else { return }
        let key = "\(call)\u{0}\(origin)\u{0}\(error.message)"
        guard reportedRefusals.count < 256, reportedRefusals.insert(key).inserted else { return }
        // The advice stays in the host's log: the page is told only what it was refused.
        let advice =
            error.code == .denied
            ? "if this page should call it, name its origin in the module's access (BridgeModule(_:access:)); a "
                + "page from a package has its custom-scheme origin (hybrid://…), not the site's https one"
            : "register the module and method natively, or correct the name the page uses"
        logger.warning(
            "bridge call refused: \(error.message); \(advice)",
            metadata: ["call": "\(call)", "origin": "\(origin)", "code": "\(error.code.rawValue)"])
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
            if sender.isMainFrame, reply == nil { mainDocumentSaidHello(token: inbound.token) }
            hello(token: inbound.token, sender: sender, reply: reply)
        case .call: call(inbound, sender: sender, reply: reply)
        case .jsReply: jsReply(inbound, sender: sender, reply: reply)
        case .stream: openStream(inbound, sender: sender, reply: reply)
        case .pull: pullStream(inbound, reply: reply)
        case .cancel: cancelStream(PendingCallKey(token: inbound.token, id: inbound.id), reply: reply)
        }
    }

    /// Main-frame messages arrive on the non-reply handler; their claimed origin must be the one of the
    /// document the engine shows. (A subframe can post there too; this is what stops it from posing as the
    /// main document of another origin.)
    private func mainFrameOriginProblem(_ claimed: String) -> String? {
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
        mainDocumentToken = token
        for (id, call) in jsCalls where call.token == nil {
            jsCalls[id]?.token = token
            enqueue(OutboundMessage.jsCall(token: token, id: id, handler: call.handler, json: call.json))
        }
    }

    private func hello(token: String, sender: Sender, reply: (any ScriptMessageReply)?) {
        guard isReady else {
            waitingHellos.append((token, sender, reply))
            return
        }
        deliver(
            OutboundMessage.ready(token: token, catalog: modules.catalog, state: stateJSON(for: sender)), reply: reply,
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

    private func call(_ inbound: InboundMessage, sender: Sender, reply: (any ScriptMessageReply)?) {
        let key = PendingCallKey(token: inbound.token, id: inbound.id)
        let started = ContinuousClock.now
        if inbound.module == Self.builtinModule {
            finish(
                key, frame: inbound.frame, reply: reply, outcome: builtin(inbound, sender: sender),
                // The runtime's own housekeeping (state refreshes), not the page's calls: not observed.
                origin: CallOrigin(module: "-", started: started))
            return
        }
        let target: ModuleRegistry.Target
        do {
            target = try resolve(inbound.module, inbound.method, for: sender)
            guard calls.count < configuration.limits.maxPendingCalls else {
                throw BridgeError.denied("too many pending calls (limit \(configuration.limits.maxPendingCalls))")
            }
            guard calls[key] == nil else { throw BridgeError.badMessage("call id \(inbound.id) is already pending") }
        } catch {
            finish(
                key, frame: inbound.frame, reply: reply, outcome: .failure(error),
                origin: CallOrigin(
                    module: "-", started: started, requested: (inbound.module, inbound.method), sender: sender))
            return
        }
        statistics.calls += 1
        let origin = CallOrigin(
            module: target.module.name, started: started, requested: (inbound.module, inbound.method), sender: sender)
        let context = CallContext(
            module: target.module.name, method: target.name, origin: sender.origin, originVerified: sender.verified,
            isMainFrame: sender.isMainFrame, page: page, bridge: self)
        let payload = Substring(inbound.payload).utf8
        switch (target.method.body, target.module.execution) {
        case (.sync(let body), .engineThread):
            finish(
                key, frame: inbound.frame, reply: reply, outcome: Result { try body(payload, context) },
                origin: origin)
        case (.sync(let body), .background):
            start(key, frame: inbound.frame, reply: reply, timeout: target.method.timeout, origin: origin) {
                @concurrent in
                try body(payload, context)
            }
        case (.async(let body), .engineThread):
            start(key, frame: inbound.frame, reply: reply, timeout: target.method.timeout, origin: origin) { [self] in
                try await self.runHere(body, payload, context)
            }
        case (.async(let body), .background):
            start(key, frame: inbound.frame, reply: reply, timeout: target.method.timeout, origin: origin) {
                @concurrent in
                try await body(payload, context)
            }
        case (.forward, _):
            // resolve() follows forwards to the end; reaching one here is a registry bug.
            finish(
                key, frame: inbound.frame, reply: reply,
                outcome: .failure(BridgeError.internalError("unresolved forward")), origin: origin)
        case (.stream, _):
            finish(
                key, frame: inbound.frame, reply: reply,
                outcome: .failure(
                    BridgeError.denied("\(target.module.name).\(target.name) is a stream; read it with hybrid.stream")),
                origin: origin)
        }
    }

    /// Runs a synchronous method on the bridge's (the engine's) executor, for callers that are not on it.
    private func runSyncHere(
        _ body: @Sendable (Substring.UTF8View, CallContext) throws -> String, _ payload: Substring.UTF8View,
        _ context: CallContext
    ) throws -> String {
        try body(payload, context)
    }

    /// Runs a stream method on the bridge's (the engine's) executor; its sink hops nowhere then.
    private func runStreamHere(
        _ body: @Sendable (Substring.UTF8View, CallContext, BridgeStreamSink) async throws -> Void,
        _ payload: Substring.UTF8View, _ context: CallContext, _ sink: BridgeStreamSink
    ) async throws {
        try await body(payload, context, sink)
    }

    /// Runs an async method on the bridge's (the engine's) executor.
    private func runHere(
        _ body: @Sendable (Substring.UTF8View, CallContext) async throws -> String, _ payload: Substring.UTF8View,
        _ context: CallContext
    ) async throws -> String {
        try await body(payload, context)
    }

    private func start(
        _ key: PendingCallKey, frame: InboundMessage.Frame, reply: (any ScriptMessageReply)?, timeout: Duration?,
        origin: CallOrigin, _ work: @escaping @Sendable () async throws -> String
    ) {
        let limit = timeout ?? configuration.limits.callTimeout
        let source: CallDeadline.Source = timeout == nil ? .callTimeout : .method
        let task = CallDeadline.start(work, limit: limit, source: source, method: origin.name) { [weak self] outcome in
            await self?.finish(key, frame: frame, reply: reply, outcome: outcome, origin: origin, fromTask: true)
        }
        calls[key] = PendingCall(task: task, reply: reply)
    }

    private func finish(
        _ key: PendingCallKey, frame: InboundMessage.Frame, reply: (any ScriptMessageReply)?,
        outcome: Result<String, any Error>, origin: CallOrigin, fromTask: Bool = false
    ) {
        if fromTask {
            // A call already failed by navigation or close must not answer again.
            guard calls.removeValue(forKey: key) != nil else { return }
        }
        let message: String
        var errorCode: BridgeError.Code?
        switch outcome {
        case .success(let json):
            statistics.succeeded += 1
            metrics.answered(module: origin.module, outcome: "ok", started: origin.started)
            message = OutboundMessage.result(token: key.token, id: key.id, json: json)
        case .failure(let error):
            statistics.failed += 1
            let error = pageError(for: error)
            metrics.answered(module: origin.module, outcome: error.code.rawValue, started: origin.started)
            message = OutboundMessage.failure(token: key.token, id: key.id, error: error)
            errorCode = error.code
        }
        observe(origin, error: errorCode)
        deliver(message, reply: reply, frame: frame)
    }

    /// Tells the host's ``BridgeConfiguration/callObserver`` about an answered call the page could be named for.
    private func observe(_ origin: CallOrigin, error: BridgeError.Code?) {
        guard let observer = configuration.callObserver, let requested = origin.requested, let sender = origin.sender
        else { return }
        observer(
            BridgeCallRecord(
                module: requested.module, method: requested.method, origin: sender.origin,
                originVerified: sender.verified, isMainFrame: sender.isMainFrame, error: error,
                duration: ContinuousClock.now - origin.started))
    }

    /// What the page is told about `error`: bridge errors as they are, anything else as `internal`
    /// without details (they may be private; they go to the native log).
    private func pageError(for error: any Error) -> BridgeError {
        if let error = error as? BridgeError { return error }
        if error is CancellationError { return BridgeError(.closed, "the call was cancelled") }
        logger.error("bridge method failed", metadata: ["error": "\(error)"])
        return .internalError("the native method failed")
    }

    // MARK: Streams

    /// Opens a stream: a stream method's elements, or any other method's one result as a one-element stream
    /// (so DSBridge's callbacks, which may answer many times, can read either kind). The opening message is
    /// also the page's first request for elements.
    private func openStream(_ inbound: InboundMessage, sender: Sender, reply: (any ScriptMessageReply)?) {
        let key = PendingCallKey(token: inbound.token, id: inbound.id)
        let target: ModuleRegistry.Target
        do {
            target = try resolve(inbound.module, inbound.method, for: sender)
            guard streams.count < configuration.limits.maxOpenStreams else {
                throw BridgeError.denied("too many open streams (limit \(configuration.limits.maxOpenStreams))")
            }
            guard streams[key] == nil, calls[key] == nil else {
                throw BridgeError.badMessage("call id \(inbound.id) is already in use")
            }
        } catch {
            statistics.failed += 1
            deliver(
                OutboundMessage.streamChunk(
                    token: key.token, id: key.id, elements: [], end: .failure(pageError(for: error))),
                reply: reply, frame: inbound.frame)
            return
        }
        statistics.calls += 1
        let context = CallContext(
            module: target.module.name, method: target.name, origin: sender.origin, originVerified: sender.verified,
            isMainFrame: sender.isMainFrame, page: page, bridge: self)
        let payload = Substring(inbound.payload).utf8
        let sink = BridgeStreamSink(bridge: self, token: key.token, id: key.id)
        // Where the module says: on the engine's executor (methods there may touch the web view), or off it.
        let produce: @Sendable () async throws -> Void
        switch (target.method.body, target.module.execution) {
        case (.stream(let body), .engineThread):
            produce = { [self] in try await self.runStreamHere(body, payload, context, sink) }
        case (.stream(let body), .background):
            produce = { @concurrent in try await body(payload, context, sink) }
        case (.sync(let body), .engineThread):
            produce = { [self] in try await sink.finish(try await self.runSyncHere(body, payload, context)) }
        case (.sync(let body), .background):
            produce = { @concurrent in try await sink.finish(try body(payload, context)) }
        case (.async(let body), .engineThread):
            produce = { [self] in try await sink.finish(try await self.runHere(body, payload, context)) }
        case (.async(let body), .background):
            produce = { @concurrent in try await sink.finish(try await body(payload, context)) }
        case (.forward, _):
            produce = { throw BridgeError.internalError("unresolved forward") }
        }
        streams[key] = StreamState(
            frame: inbound.frame, pull: (count: pullCount(inbound.payload), reply: reply))
        streams[key]?.task = Task { [weak self] in
            let outcome: Result<Void, any Error>
            do {
                try await produce()
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            await self?.streamEnded(key, outcome)
        }
    }

    /// The number of elements a pull asks for: the window when the payload says nothing sensible.
    private func pullCount(_ payload: Substring.UTF8View) -> Int {
        let window = configuration.limits.streamWindow
        guard let count = Int(String(decoding: payload, as: UTF8.self)), count > 0 else { return window }
        return min(count, window)
    }

    /// The producer's side: queues one element, suspending while a whole window waits for the page.
    func streamElement(token: String, id: Int, json: String, last: Bool = false) async throws {
        let key = PendingCallKey(token: token, id: id)
        while let stream = streams[key], stream.buffer.count >= configuration.limits.streamWindow {
            await withCheckedContinuation { continuation in
                streams[key]?.room = continuation
            }
        }
        guard streams[key] != nil, !Task.isCancelled else { throw CancellationError() }
        streams[key]?.buffer.append(json)
        // A last element travels with the end: a one-result stream costs the page one request, not two.
        if last {
            statistics.succeeded += 1
            streams[key]?.end = .success(())
        }
        answerPull(key)
    }

    private func streamEnded(_ key: PendingCallKey, _ outcome: Result<Void, any Error>) {
        // Gone (delivered, cancelled) or already ended with its last element.
        guard let stream = streams[key], stream.end == nil else { return }
        switch outcome {
        case .success:
            statistics.succeeded += 1
            streams[key]?.end = .success(())
        case .failure(let error):
            statistics.failed += 1
            streams[key]?.end = .failure(pageError(for: error))
        }
        answerPull(key)
    }

    private func pullStream(_ inbound: InboundMessage, reply: (any ScriptMessageReply)?) {
        let key = PendingCallKey(token: inbound.token, id: inbound.id)
        guard streams[key] != nil, streams[key]?.pull == nil else {
            // Not open (ended, cancelled, never opened) or already asked: say it is over.
            deliver(
                OutboundMessage.streamChunk(
                    token: key.token, id: key.id, elements: [],
                    end: .failure(BridgeError.badMessage("stream \(inbound.id) is not open or already asked"))),
                reply: reply, frame: inbound.frame)
            return
        }
        streams[key]?.pull = (count: pullCount(inbound.payload), reply: reply)
        answerPull(key)
    }

    /// Answers the page's outstanding request when there is something to send, and lets the producer go on.
    private func answerPull(_ key: PendingCallKey) {
        guard var stream = streams[key], let pull = stream.pull, !stream.buffer.isEmpty || stream.end != nil else {
            return
        }
        let count = min(pull.count, stream.buffer.count)
        let elements = Array(stream.buffer.prefix(count))
        stream.buffer.removeFirst(count)
        let end = stream.buffer.isEmpty ? stream.end : nil
        stream.pull = nil
        let room = stream.room
        stream.room = nil
        if end != nil {
            streams[key] = nil
        } else {
            streams[key] = stream
        }
        room?.resume()
        deliver(
            OutboundMessage.streamChunk(token: key.token, id: key.id, elements: elements, end: end), reply: pull.reply,
            frame: stream.frame)
    }

    /// The page stopped reading: the producer is cancelled (it sees `CancellationError` from the sink, or
    /// `Task.isCancelled`), and nothing more is sent.
    private func cancelStream(_ key: PendingCallKey, reply: (any ScriptMessageReply)?) {
        if let stream = streams.removeValue(forKey: key) {
            stream.task?.cancel()
            stream.room?.resume()
            stream.pull?.reply?.resolve(
                json: OutboundMessage.batch([
                    OutboundMessage.streamChunk(token: key.token, id: key.id, elements: [], end: .success(()))
                ]))
        }
        reply?.resolve(json: "[]")
    }

    /// Streams open now.
    public var openStreamCount: Int { streams.count }

    // MARK: Runtime methods

    /// The runtime's own methods (`hybrid.has`, `window.close()`), under a name no host module can take.
    static let builtinModule = "$hybrid"

    private func builtin(_ inbound: InboundMessage, sender: Sender) -> Result<String, any Error> {
        Result {
            switch inbound.method {
            case "has":
                // [module, method] → how this frame may call it ("sync", "async"), or null: the answer reveals
                // nothing about modules the frame may not call.
                let name = try BridgeMethod.decode([String].self, from: Substring(inbound.payload).utf8)
                guard name.count == 2 else { throw BridgeError.badArguments("has takes [module, method]") }
                let target = try? resolve(name[0], name[1], for: sender)
                return target.map { OutboundMessage.quote($0.method.kind) } ?? "null"
            case "close":
                // Browsers let only a top-level window close; a frame's close() does nothing there either.
                guard sender.isMainFrame else { throw BridgeError.denied("only the main frame can close the page") }
                engine?.uiDelegate?.pageDidRequestClose()
                return "null"
            default:
                throw BridgeError(.unknownMethod, "the runtime has no method '\(inbound.method)'")
            }
        }
    }

    // MARK: Synchronous calls

    /// Answers `dialog` and returns true when it is a synchronous call made by this bridge's runtime (a prompt
    /// starting with its key); returns false for every other dialog, which the caller passes on to the host.
    ///
    /// The caller is the frame the engine names in ``ScriptDialog/frame``; where the engine names none and
    /// could (``WebEngine/verifiesMessageFrames``), the call is refused, as an unstamped post is.
    public func answerSynchronousCall(_ dialog: ScriptDialog, reply: any ScriptDialogReply) -> Bool {
        guard case .prompt = dialog.kind, dialog.message.hasPrefix(syncPrefix) else { return false }
        statistics.received += 1
        let text = String(dialog.message.dropFirst(syncPrefix.count))
        runSynchronousCall(text, frame: dialog.frame, reply: reply)
        return true
    }

    private func runSynchronousCall(_ text: String, frame: FrameInfo?, reply: any ScriptDialogReply) {
        let started = ContinuousClock.now
        let unattributed = CallOrigin(module: "-", started: started)
        guard !isClosed else {
            return answerSync(reply, .failure(BridgeError(.closed, "the bridge is closed")), origin: unattributed)
        }
        if frame == nil, engine?.verifiesMessageFrames == true {
            return answerSync(
                reply, .failure(BridgeError.denied("the engine did not name the calling frame")), origin: unattributed)
        }
        let inbound: InboundMessage
        do {
            inbound = try parser.parse(text)
        } catch {
            return answerSync(reply, .failure(error.error), origin: unattributed)
        }
        guard inbound.kind == .call else {
            return answerSync(
                reply, .failure(BridgeError.badMessage("a synchronous message must be a call")), origin: unattributed)
        }
        let sender = Sender(inbound, frame: frame)
        let requested = CallOrigin(
            module: "-", started: started, requested: (inbound.module, inbound.method), sender: sender)
        if !sender.verified, inbound.frame == .main, let problem = mainFrameOriginProblem(inbound.origin) {
            return answerSync(reply, .failure(BridgeError.denied(problem)), origin: requested)
        }
        if inbound.module == Self.builtinModule {
            return answerSync(
                reply, builtin(inbound, sender: sender), origin: CallOrigin(module: "-", started: started))
        }
        let target: ModuleRegistry.Target
        do {
            target = try resolve(inbound.module, inbound.method, for: sender)
            guard target.method.synchronous else {
                throw BridgeError.denied(
                    "\(target.module.name).\(target.name) is not declared synchronous; call it with hybrid.call")
            }
        } catch {
            return answerSync(reply, .failure(error), origin: requested)
        }
        statistics.calls += 1
        let origin = CallOrigin(
            module: target.module.name, started: started, requested: (inbound.module, inbound.method), sender: sender)
        let context = CallContext(
            module: target.module.name, method: target.name, origin: sender.origin, originVerified: sender.verified,
            isMainFrame: sender.isMainFrame, page: page, bridge: self)
        let payload = Substring(inbound.payload).utf8
        let work: @Sendable () async throws -> String
        switch (target.method.body, target.module.execution) {
        case (.sync(let body), .engineThread):
            return answerSync(reply, Result { try body(payload, context) }, origin: origin)
        case (.sync(let body), .background):
            work = { @concurrent in try body(payload, context) }
        case (.async(let body), .engineThread):
            work = { [self] in try await self.runHere(body, payload, context) }
        case (.async(let body), .background):
            work = { @concurrent in try await body(payload, context) }
        case (.forward, _):
            return answerSync(reply, .failure(BridgeError.internalError("unresolved forward")), origin: origin)
        case (.stream, _):
            return answerSync(
                reply, .failure(BridgeError.denied("a stream cannot be called synchronously")), origin: origin)
        }
        // The page's main thread waits for this answer: it always comes, by the limit at the latest.
        let limit = target.method.timeout ?? configuration.limits.syncCallTimeout
        let source: CallDeadline.Source = target.method.timeout == nil ? .syncCallTimeout : .method
        nextSyncID += 1
        let id = nextSyncID
        let task = CallDeadline.start(work, limit: limit, source: source, method: origin.name) { [weak self] outcome in
            await self?.finishSync(id, outcome, origin: origin)
        }
        syncCalls[id] = PendingSync(task: task, reply: reply)
    }

    private func finishSync(_ id: Int, _ outcome: Result<String, any Error>, origin: CallOrigin) {
        // Already answered by navigation or close.
        guard let call = syncCalls.removeValue(forKey: id) else { return }
        answerSync(call.reply, outcome, origin: origin)
    }

    private func answerSync(_ reply: any ScriptDialogReply, _ outcome: Result<String, any Error>, origin: CallOrigin) {
        switch outcome {
        case .success(let json):
            statistics.succeeded += 1
            metrics.answered(module: origin.module, outcome: "ok", started: origin.started)
            observe(origin, error: nil)
            reply.answer(.text(OutboundMessage.syncResult(json: json)))
        case .failure(let error):
            statistics.failed += 1
            let error = pageError(for: error)
            metrics.answered(module: origin.module, outcome: error.code.rawValue, started: origin.started)
            observe(origin, error: error.code)
            reply.answer(.text(OutboundMessage.syncFailure(error)))
        }
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
        guard InboundMessageParser.isName(name) else {
            throw .badArguments(
                "state name '\(name)' must be letters, digits, _ $ . - (up to 64, not starting with a digit)")
        }
        guard modules[module] != nil else {
            throw BridgeError(.unknownModule, "no native module named '\(module)' to decide who reads state '\(name)'")
        }
        let json = try BridgeMethod.encode(value)
        guard json.utf8.count <= configuration.limits.maxMessageBytes else {
            throw .badArguments(
                "state '\(name)' is \(json.utf8.count) bytes; the limit is \(configuration.limits.maxMessageBytes)")
        }
        if let current = publishedState[name], current.module == module, current.json == json { return }
        publishedState[name] = (module, json)
        stateDidChange()
    }

    /// Withdraws `name`: pages read `undefined` from then on.
    public func removeState(_ name: String) {
        guard publishedState.removeValue(forKey: name) != nil else { return }
        stateDidChange()
    }

    /// The names of the published state.
    public var stateNames: [String] { publishedState.keys.sorted() }

    private func stateDidChange() {
        refreshStateScript()
        // No value travels with the news: the main frame asks again, and its subframes too, each through its
        // own stamped channel, so each gets only what it may read.
        guard !isClosed else { return }
        enqueue(OutboundMessage.stateChanged)
    }

    /// Replaces the document-start script, so new documents (every frame) start with the current values. The
    /// runtime keeps an entry only where its own origin and frame fit the entry's access; it reads its origin
    /// before any page script runs.
    private func refreshStateScript() {
        guard let engine else { return }
        if let old = stateScript {
            engine.removeUserScript(old)
            stateScript = nil
        }
        let verifies = engine.verifiesMessageFrames
        var entries: [(name: String, json: String, origins: Set<String>?, subframes: Bool)] = []
        for (name, entry) in publishedState.sorted(by: { $0.key < $1.key }) {
            guard let module = modules[entry.module], let access = modules.staticAccess(of: entry.module) else {
                continue
            }
            // Where the engine names no frames, modules limited to origins or the main frame answer nobody.
            if !verifies, module.access.dependsOnTheFrame { continue }
            entries.append((name, entry.json, access.origins, access.allowsSubframes))
        }
        guard !entries.isEmpty else { return }
        let batch = OutboundMessage.javaScriptString(OutboundMessage.batch([OutboundMessage.stateSnapshot(entries)]))
        let source =
            "(function () { const receive = window[\(OutboundMessage.quote(configuration.receiverName))]; "
            + "if (typeof receive === 'function') receive([\(OutboundMessage.quote(deliveryKey)),\(batch)]); })();"
        let script = UserScript(source: source, injectionTime: .documentStart, allFrames: true)
        engine.addUserScript(script)
        stateScript = script
    }

    /// The published state `sender` may read, as a JSON object.
    private func stateJSON(for sender: Sender) -> String {
        var parts: [String] = []
        for (name, entry) in publishedState.sorted(by: { $0.key < $1.key })
        where modules.allowsAccess(
            to: entry.module, origin: sender.origin, isMainFrame: sender.isMainFrame, verified: sender.verified)
        {
            parts.append("\(OutboundMessage.quote(name)):\(entry.json)")
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    // MARK: Delivery

    private func deliver(_ message: String, reply: (any ScriptMessageReply)?, frame: InboundMessage.Frame) {
        if let reply {
            reply.resolve(json: OutboundMessage.batch([message]))
        } else {
            enqueue(message)
        }
    }

    /// Queues a message for the main frame; the whole queue goes out in one evaluation at the end of the
    /// post being handled, or else at the end of this turn of the engine's loop.
    private func enqueue(_ message: String) {
        outbox.append(message)
        outboxBytes += message.utf8.count
        if outboxBytes >= maxBatchBytes {
            flush()
            return
        }
        guard !flushScheduled else { return }
        flushScheduled = true
        Task { self.flush() }
    }

    private func flush() {
        flushScheduled = false
        defer {
            outbox.removeAll(keepingCapacity: true)
            outboxBytes = 0
        }
        guard !outbox.isEmpty, let engine else { return }
        // The batch travels as a string the runtime parses with JSON.parse, never as JavaScript source: an
        // object literal would turn a "__proto__" key into a prototype, where every other frame (which parses
        // its replies) keeps it as a key. One JSON argument, an array of two strings: JavaScriptCore reads such
        // a call with its JSON parser instead of compiling it. (Measured: two arguments, or an array holding
        // the messages as objects, cost about 50 µs more per evaluation, a quarter of a small call's round
        // trip; a megabyte as objects costs over 100 ms.)
        let batch = OutboundMessage.javaScriptString(OutboundMessage.batch(outbox))
        let script = "\(configuration.receiverName)([\(OutboundMessage.quote(deliveryKey)),\(batch)])"
        statistics.evaluations += 1
        engine.evaluateJavaScriptIgnoringResult(script)
    }

    // MARK: Events and calls into the page

    /// Sends `name` with `data` to every listener in every frame of the page.
    public func emit<Data: Encodable>(_ name: String, _ data: Data) throws(BridgeError) {
        guard !isClosed else { throw BridgeError(.closed, "the bridge is closed") }
        statistics.events += 1
        enqueue(OutboundMessage.event(name: name, json: try BridgeMethod.encode(data)))
    }

    /// Calls the page's handler `name` (registered with `hybrid.handle` or WVJB's `registerHandler`)
    /// and returns its answer.
    public func callJavaScript<Argument: Encodable, Answer: Decodable>(
        _ name: String, _ argument: Argument, as answer: Answer.Type = JSONValue.self,
        timeout: Duration = .seconds(30)
    ) async throws -> Answer {
        guard !isClosed else { throw BridgeError(.closed, "the bridge is closed") }
        let id = freshJSCallID()
        let json = try BridgeMethod.encode(argument)
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            await self?.resumeJSCall(
                id, with: .failure(BridgeError(.timeout, "page handler '\(name)' did not answer within \(timeout)")))
        }
        defer { timer.cancel() }
        let text: String = try await withCheckedThrowingContinuation { continuation in
            jsCalls[id] = PendingJSCall(continuation: continuation, handler: name, json: json, token: mainDocumentToken)
            if let token = mainDocumentToken {
                enqueue(OutboundMessage.jsCall(token: token, id: id, handler: name, json: json))
            }
        }
        return try BridgeMethod.decode(Answer.self, from: Substring(text).utf8)
    }

    private func jsReply(_ inbound: InboundMessage, sender: Sender, reply: (any ScriptMessageReply)?) {
        // Only the document that was called may answer: same id, same document token, the main frame.
        guard sender.isMainFrame, let call = jsCalls[inbound.id], call.token == inbound.token else {
            refuse(
                InboundMessageError(error: .denied("this frame has no call of native to answer with that id")),
                reply: reply)
            return
        }
        struct Reply: Decodable {
            let ok: Bool
            let r: JSONValue?
            let e: PageError?
        }
        struct PageError: Decodable {
            let code: String
            let message: String
        }
        let outcome: Result<String, any Error>
        do {
            let reply = try BridgeMethod.decode(Reply.self, from: Substring(inbound.payload).utf8)
            if reply.ok {
                outcome = .success(try BridgeMethod.encode(reply.r ?? .null))
            } else {
                let code = BridgeError.Code(rawValue: reply.e?.code ?? "") ?? .internalError
                outcome = .failure(BridgeError(code, reply.e?.message ?? "the page handler failed"))
            }
        } catch {
            outcome = .failure(error)
        }
        resumeJSCall(inbound.id, with: outcome)
    }

    private func resumeJSCall(_ id: Int, with outcome: Result<String, any Error>) {
        jsCalls.removeValue(forKey: id)?.continuation.resume(with: outcome)
    }

    // MARK: Lifecycle

    /// The main frame committed a new document: every call of the old one fails with `navigated`
    /// (its handler is cancelled and its result, if any, is dropped), exactly once.
    public func pageDidNavigate() {
        mainDocumentToken = nil
        failEverything(BridgeError(.navigated, "the page navigated away before the call finished"))
    }

    /// Detaches from the engine and fails everything pending with `closed`. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
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
        let open = streams
        streams.removeAll()
        for (key, stream) in open {
            stream.task?.cancel()
            stream.room?.resume()
            stream.pull?.reply?.resolve(
                json: OutboundMessage.batch([
                    OutboundMessage.streamChunk(token: key.token, id: key.id, elements: [], end: .failure(error))
                ]))
        }
        let jsPending = jsCalls
        jsCalls.removeAll()
        for (_, call) in jsPending { call.continuation.resume(throwing: error) }
        outbox.removeAll()
        outboxBytes = 0
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

    /// A call id no frame can guess, exact in a JavaScript number (below 2^53), and not in use.
    private func freshJSCallID() -> Int {
        while true {
            let id = Int.random(in: 1..<(1 << 53))
            if jsCalls[id] == nil { return id }
        }
    }

    private static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// What a bridge has done, for tests and telemetry.
public struct BridgeStatistics: Sendable, Equatable {
    public var received = 0
    public var refused = 0
    public var calls = 0
    public var succeeded = 0
    public var failed = 0
    /// Calls ended by navigation or close before their method answered.
    public var abandoned = 0
    public var events = 0
    /// Evaluations used to deliver main-frame batches.
    public var evaluations = 0
}
