import Foundation

/// The one invocation path of calls, synchronous calls and streams: resolve the target, check access, run the
/// method on its lane with its limit, answer. The three differ only in how they answer (``Answer``).
extension BridgeEngine {
    /// How a kind of call answers: the one thing calls, synchronous calls and streams do differently.
    enum Answer: Sendable {
        /// A call: its result is delivered (through the post's reply, else in the main frame's next batch).
        case delivered(CallKey, frame: InboundMessage.Frame, reply: (any ScriptMessageReply)?)
        /// A synchronous call: its result answers the prompt the page's main thread is blocked in.
        case prompt(any ScriptDialogReply)
        /// A stream: its elements go to the page as it pulls them; the opening message is its first pull, for
        /// `pull` elements.
        case stream(CallKey, frame: InboundMessage.Frame, reply: (any ScriptMessageReply)?, pull: Int)
        /// A binary call: its answer is the response to the upload that brought its bytes, read by the runtime of
        /// the frame that made the call (`origin`, the only one the response's CORS headers let read it).
        case uploaded(CallKey, task: any SchemeTask, origin: String)
    }

    /// Runs what `inbound` asks for and answers it as `answer` says.
    func invoke(_ inbound: InboundMessage, sender: Sender, started: ContinuousClock.Instant, answer: Answer) {
        if inbound.module == Self.builtinModule, answer.runsBuiltins {
            // The runtime's own housekeeping (state refreshes), not the page's calls: not observed.
            return settle(answer, builtin(inbound, sender: sender), origin: CallOrigin(module: "-", started: started))
        }
        let target: ModuleRegistry.Target
        do {
            target = try resolve(inbound.module, inbound.method, for: sender)
            try admit(target, as: answer)
        } catch {
            let requested = CallOrigin(
                module: "-", started: started, requested: (inbound.module, inbound.method), sender: sender)
            return settle(answer, .failure(error), origin: requested)
        }
        run(target, inbound, sender: sender, started: started, answer: answer, incoming: nil)
    }

    /// Runs an allowed call of `target` and answers it; `incoming` are the bytes a binary call uploaded.
    func run(
        _ target: ModuleRegistry.Target, _ inbound: InboundMessage, sender: Sender, started: ContinuousClock.Instant,
        answer: Answer, incoming: [Data]?
    ) {
        statistics.calls += 1
        let outgoing = outgoing(for: answer, origin: sender.origin)
        let invocation = Invocation(
            target: target,
            context: CallContext(
                module: target.module.name, method: target.name, origin: sender.origin,
                originVerified: sender.verified, isMainFrame: sender.isMainFrame, page: page, bridge: self),
            payload: Substring(inbound.payload).utf8,
            origin: CallOrigin(
                module: target.module.name, started: started, requested: (inbound.module, inbound.method),
                sender: sender, bytes: outgoing))
        // The small-call path: a synchronous method on the engine's lane answers now, with no task and no hop.
        // (A stream answers through its sink, from its own task, even then.)
        if answer.answersInline, let body = invocation.inlineBody {
            let outcome = BinaryCoding.outgoing.withValue(outgoing) {
                BinaryCoding.incoming.withValue(incoming) {
                    Result { try body(invocation.payload, invocation.context) }
                }
            }
            return settle(answer, outcome, origin: invocation.origin)
        }
        let work: Invocation.Work
        do {
            let lease = try leaseArguments(of: invocation)
            work = try invocation.work(on: self, lease: lease).binding(outgoing: outgoing, incoming: incoming)
        } catch {
            return settle(answer, .failure(error), origin: invocation.origin)
        }
        start(work, of: invocation, answer: answer)
    }

    /// Counts a call's arguments against ``BridgeLimits/maxPendingArgumentBytes`` while it waits for its answer, or
    /// refuses it (with one warning per bridge: a page doing this does it many times).
    private func leaseArguments(of invocation: Invocation) throws(BridgeError) -> ArgumentBudget.Lease {
        let size = invocation.payload.count
        if let lease = argumentBudget.lease(size) { return lease }
        let message =
            "calls waiting for an answer hold \(argumentBudget.inUse) bytes of arguments; this call's \(size) would "
            + "pass the limit of \(argumentBudget.limit)"
        if !reportedArgumentBudget {
            reportedArgumentBudget = true
            let advice =
                "raise BridgeLimits.maxPendingArgumentBytes if the page's calls really hold this much at once "
                + "(binary values carry large data without it)"
            logger.warning(
                "bridge call refused: \(message); \(advice)", metadata: ["call": "\(invocation.origin.name)"])
        }
        throw .denied(message)
    }

    /// The method `sender`'s frame may call: the registry's answer for its origin, frame and verification.
    func resolve(_ module: String, _ method: String, for sender: Sender) throws(BridgeError) -> ModuleRegistry.Target {
        do {
            return try modules.resolve(
                module: module, method: method, origin: sender.origin, isMainFrame: sender.isMainFrame,
                verified: sender.verified)
        } catch {
            reportRefusal(
                error, module: module, call: "\(module).\(method)", origin: sender.origin,
                isMainFrame: sender.isMainFrame)
            throw error
        }
    }

    /// A call the page was refused is a warning the host sees (the page sees the error too), said once per call,
    /// origin and reason: a page that retries in a loop, or a hostile one trying names, cannot flood the log.
    private func reportRefusal(
        _ error: BridgeError, module: String, call: String, origin: String, isMainFrame: Bool
    ) {
        guard [.denied, .unknownModule, .unknownMethod].contains(error.code) else { return }
        let key = "\(call)\u{0}\(origin)\u{0}\(error.message)"
        guard reportedRefusals.count < 256, reportedRefusals.insert(key).inserted else { return }
        // The advice stays in the host's log: the page is told only what it was refused.
        let advice: String
        let access = modules[module]?.access
        if error.code != .denied {
            advice = "register the module and method natively, or correct the name the page uses"
        } else if !isMainFrame, access?.allowsSubframes == false {
            advice = "if frames should call it, allow subframes in the module's access (allowsSubframes: true)"
        } else if let named = access?.namesAddress(of: origin) {
            advice =
                "its access names \(named), the site's address, but its pages are served as \(origin); name the "
                + "site instead (access: .site, with a HybridSite in the container's configuration)"
        } else {
            advice =
                "if this page should call it, name its origin in the module's access (BridgeModule(_:access:)); a "
                + "page from a package has its custom-scheme origin (hybrid://…), not the site's https one: name "
                + "the site (access: .site)"
        }
        logger.warning(
            "bridge call refused: \(error.message); \(advice)",
            metadata: ["call": "\(call)", "origin": "\(origin)", "code": "\(error.code.rawValue)"])
    }

    /// What each kind asks beyond the registry's access: room, a free id, a method declared for it.
    func admit(_ target: ModuleRegistry.Target, as answer: Answer) throws(BridgeError) {
        let limits = configuration.limits
        switch answer {
        case .delivered(let key, _, _):
            guard calls.count < limits.maxPendingCalls else {
                throw .denied("too many pending calls (limit \(limits.maxPendingCalls))")
            }
            guard calls[key] == nil else { throw .badMessage("call id \(key.id) is already pending") }
        case .prompt:
            guard target.method.synchronous else {
                throw .denied(
                    "\(target.module.name).\(target.name) is not declared synchronous; call it with hybrid.call")
            }
        case .stream(let key, _, _, _):
            guard streams.count < limits.maxOpenStreams else {
                throw .denied("too many open streams (limit \(limits.maxOpenStreams))")
            }
            guard !streams.contains(key), calls[key] == nil else {
                throw .badMessage("call id \(key.id) is already in use")
            }
        case .uploaded:
            // Admitted as a call when it asked to upload.
            break
        }
    }

    /// Starts work that answers later: a result against its limit (``CallDeadline``), a stream in its own task.
    private func start(_ work: Invocation.Work, of invocation: Invocation, answer: Answer) {
        let origin = invocation.origin
        switch (answer, work) {
        case (.delivered(let key, let frame, let reply), .value(let value)):
            let (limit, source) = invocation.limit(fallback: configuration.limits.callTimeout, source: .callTimeout)
            let task = CallDeadline.start(value, limit: limit, source: source, method: origin.name) {
                [weak self] outcome in
                await self?.settleCall(key, frame: frame, reply: reply, outcome, origin: origin)
            }
            calls[key] = PendingCall(task: task, reply: reply)
        case (.uploaded(let key, let schemeTask, let owner), .value(let value)):
            let (limit, source) = invocation.limit(fallback: configuration.limits.callTimeout, source: .callTimeout)
            let task = CallDeadline.start(value, limit: limit, source: source, method: origin.name) {
                [weak self] outcome in
                await self?.settleUploaded(key, schemeTask, owner: owner, outcome, origin: origin)
            }
            calls[key] = PendingCall(task: task, reply: nil, answerTask: schemeTask, answerOrigin: owner)
        case (.uploaded, .stream):
            let name = "\(invocation.target.module.name).\(invocation.target.name)"
            settle(
                answer, .failure(BridgeError.denied("\(name) is a stream; read it with hybrid.stream")), origin: origin)
        case (.prompt(let reply), .value(let value)):
            // The page's main thread waits for this answer: it always comes, by the limit at the latest.
            let (limit, source) = invocation.limit(
                fallback: configuration.limits.syncCallTimeout, source: .syncCallTimeout)
            nextSyncID += 1
            let id = nextSyncID
            let task = CallDeadline.start(value, limit: limit, source: source, method: origin.name) {
                [weak self] outcome in
                await self?.settleSync(id, outcome, origin: origin)
            }
            syncCalls[id] = PendingSync(task: task, reply: reply)
        case (.delivered, .stream):
            let name = "\(invocation.target.module.name).\(invocation.target.name)"
            let error = BridgeError.denied("\(name) is a stream; read it with hybrid.stream")
            settle(answer, .failure(error), origin: origin)
        case (.prompt, .stream):
            settle(answer, .failure(BridgeError.denied("a stream cannot be called synchronously")), origin: origin)
        case (.stream(let key, let frame, let reply, let pull), _):
            openStream(key, frame: frame, reply: reply, pull: pull, work: work)
        }
    }

    /// Answers `answer` with `outcome`, now.
    func settle(_ answer: Answer, _ outcome: Result<String, any Error>, origin: CallOrigin) {
        switch answer {
        case .delivered(let key, let frame, let reply):
            deliver(resultMessage(key, outcome, origin: origin), reply: reply, frame: frame)
        case .uploaded(let key, let task, let owner):
            Self.answer(task, owner: owner, OutboundMessage.batch([resultMessage(key, outcome, origin: origin)]))
        case .prompt(let reply):
            switch account(outcome, origin: origin) {
            case .success(let json): reply.answer(.text(OutboundMessage.syncResult(json: json)))
            case .failure(let error): reply.answer(.text(OutboundMessage.syncFailure(error)))
            }
        case .stream(let key, let frame, let reply, _):
            // A stream settled at once never opened (refused, or nothing to run): its one chunk ends it. Streams
            // are counted, not timed or observed.
            let message: String
            switch outcome {
            case .success(let json):
                statistics.succeeded += 1
                message = OutboundMessage.streamChunk(
                    token: key.token, id: key.id, elements: [json], end: .success(()),
                    bytes: origin.bytes?.didRegister == true)
            case .failure(let error):
                statistics.failed += 1
                let end: Result<Void, BridgeError> = .failure(pageError(for: error))
                message = OutboundMessage.streamChunk(token: key.token, id: key.id, elements: [], end: end)
            }
            deliver(message, reply: reply, frame: frame)
        }
    }

    /// A call's answer, as the page reads it; it says when it holds bytes to fetch.
    private func resultMessage(_ key: CallKey, _ outcome: Result<String, any Error>, origin: CallOrigin) -> String {
        switch account(outcome, origin: origin) {
        case .success(let json):
            OutboundMessage.result(token: key.token, id: key.id, json: json, bytes: origin.bytes?.didRegister == true)
        case .failure(let error): OutboundMessage.failure(token: key.token, id: key.id, error: error)
        }
    }

    /// Answers a binary call through the response to its upload, which only `owner` may read.
    static func answer(_ task: any SchemeTask, owner: String, _ batch: String) {
        task.respond(
            status: 200, headers: BridgeBytesSchemeHandler.headers(origin: owner, type: "application/json"),
            body: Data(batch.utf8))
    }

    /// A binary call's method answered from its task: answered unless navigation or close already failed it.
    private func settleUploaded(
        _ key: CallKey, _ task: any SchemeTask, owner: String, _ outcome: Result<String, any Error>, origin: CallOrigin
    ) {
        guard calls.removeValue(forKey: key) != nil else { return }
        settle(.uploaded(key, task: task, origin: owner), outcome, origin: origin)
    }

    /// A call's method answered from its task: answered unless navigation or close already failed the call.
    private func settleCall(
        _ key: CallKey, frame: InboundMessage.Frame, reply: (any ScriptMessageReply)?,
        _ outcome: Result<String, any Error>, origin: CallOrigin
    ) {
        guard calls.removeValue(forKey: key) != nil else { return }
        settle(.delivered(key, frame: frame, reply: reply), outcome, origin: origin)
    }

    /// A synchronous call's method answered from its task: answered unless navigation or close already did.
    private func settleSync(_ id: Int, _ outcome: Result<String, any Error>, origin: CallOrigin) {
        guard let call = syncCalls.removeValue(forKey: id) else { return }
        settle(.prompt(call.reply), outcome, origin: origin)
    }

    /// Counts an answered call (statistics, metrics, the host's observer); returns what the page is told.
    private func account(_ outcome: Result<String, any Error>, origin: CallOrigin) -> Result<String, BridgeError> {
        switch outcome {
        case .success(let json):
            statistics.succeeded += 1
            metrics.answered(module: origin.module, outcome: "ok", started: origin.started)
            observe(origin, error: nil)
            return .success(json)
        case .failure(let error):
            statistics.failed += 1
            let error = pageError(for: error)
            metrics.answered(module: origin.module, outcome: error.code.rawValue, started: origin.started)
            observe(origin, error: error.code)
            return .failure(error)
        }
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
    func pageError(for error: any Error) -> BridgeError {
        if let error = error as? BridgeError { return error }
        if error is CancellationError { return BridgeError(.closed, "the call was cancelled") }
        logger.error("bridge method failed", metadata: ["error": "\(error)"])
        return .internalError("the native method failed")
    }
}

extension Invocation.Work {
    /// The same work with the bytes of its answer going to `outgoing` and its arguments' bytes read from
    /// `incoming` (task-locals: they follow the work onto whatever lane it runs).
    func binding(outgoing: BinaryCoding.Outgoing?, incoming: [Data]?) -> Invocation.Work {
        guard outgoing != nil || incoming != nil else { return self }
        switch self {
        case .value(let value):
            return .value {
                try await BinaryCoding.outgoing.withValue(outgoing) {
                    try await BinaryCoding.incoming.withValue(incoming) { try await value() }
                }
            }
        case .stream(let body):
            return .stream { sink in
                try await BinaryCoding.outgoing.withValue(outgoing) {
                    try await BinaryCoding.incoming.withValue(incoming) { try await body(sink) }
                }
            }
        }
    }
}

extension BridgeEngine.Answer {
    /// The runtime's own methods answer calls and synchronous calls; a stream of them is an unknown module.
    var runsBuiltins: Bool {
        if case .stream = self { return false }
        return true
    }

    /// Whether a method the caller can run now answers now; a stream always answers from its own task.
    var answersInline: Bool { runsBuiltins }
}
