import Foundation

/// Binary calls on the bridge's side: a call whose arguments hold bytes is checked like any call (module, method,
/// access, limits), then waits for its bytes, which the page uploads to the bridge's scheme under an id native
/// chose; the method runs once they are in, and its answer is the upload's response.
extension BridgeEngine {
    /// A binary call admitted and waiting for its upload.
    struct AwaitingUpload {
        let key: CallKey
        let target: ModuleRegistry.Target
        let inbound: InboundMessage
        let sender: Sender
        let started: ContinuousClock.Instant
        /// Ends the wait at the call's limit.
        let expiry: Task<Void, Never>
    }

    func binaryCall(_ inbound: InboundMessage, sender: Sender, reply: (any ScriptMessageReply)?) {
        let key = CallKey(token: inbound.token, id: inbound.id)
        let answer = Answer.delivered(key, frame: inbound.frame, reply: reply)
        let requested = CallOrigin(
            module: "-", started: .now, requested: (inbound.module, inbound.method), sender: sender)
        let target: ModuleRegistry.Target
        do {
            target = try resolve(inbound.module, inbound.method, for: sender)
            try admit(target, as: answer)
            guard let bytesHandler else {
                throw BridgeError.denied(
                    "binary values need the bridge's scheme '\(configuration.bytesScheme)', which this engine did "
                        + "not take (see the log)")
            }
            guard sender.origin != "null" else { throw BinaryCoding.error(for: .opaqueOrigin) }
            try admitBytes(inbound.binaryParts.reduce(0, +), for: key)
            let id = ByteRedemptions.randomID()
            // The call's own limit; a call without one still waits for its bytes no longer than bytes wait for a
            // page (the page's runtime sends them at once), so a page that never sends them cannot hold calls.
            let (callLimit, _) = Invocation.limit(of: target, fallback: configuration.limits.callTimeout)
            let limit = callLimit ?? configuration.limits.byteRedemptionTimeout
            let expiry = Task { [weak self] in
                try? await Task.sleep(for: limit)
                guard !Task.isCancelled else { return }
                self?.uploadExpired(id, after: limit)
            }
            awaitingUploads[id] = AwaitingUpload(
                key: key, target: target, inbound: inbound, sender: sender, started: requested.started, expiry: expiry)
            bytesHandler.expectUpload(id, from: sender.origin)
            calls[key] = PendingCall(task: expiry, reply: reply, upload: id)
            deliver(
                OutboundMessage.uploadTicket(token: key.token, id: key.id, upload: id), reply: reply,
                frame: inbound.frame)
        } catch {
            settle(answer, .failure(error), origin: requested)
        }
    }

    /// Counts a binary call's bytes against ``BridgeLimits/maxBinaryBytesInFlight``, or refuses it.
    private func admitBytes(_ size: Int, for key: CallKey) throws(BridgeError) {
        binaryBytesByCall = binaryBytesByCall.filter { calls[$0.key] != nil }
        let inFlight = binaryBytesByCall.values.reduce(0, +)
        let limit = configuration.limits.maxBinaryBytesInFlight
        guard inFlight + size <= limit else {
            let message =
                "the binary calls in flight already hold \(inFlight) bytes; with this call's \(size) they would pass "
                + "BridgeLimits.maxBinaryBytesInFlight (\(limit)): retry once they are answered"
            logger.warning("binary call refused: \(message)")
            throw .denied(message)
        }
        binaryBytesByCall[key] = size
    }

    /// The page's upload arrived: its bytes, from the origin that made the call, or it is refused.
    func receiveUpload(_ id: String, task: any SchemeTask) {
        let request = task.request
        let origin = request.header("Origin")?.lowercased()
        guard let waiting = awaitingUploads[id], waiting.sender.origin == origin else {
            // Unknown, spent, expired and another origin's ids answer alike; another origin's try leaves the id to
            // the caller.
            return BridgeBytesSchemeHandler.refuse(task, 404, origin: origin, "no upload awaited under this id")
        }
        bytesHandler?.forgetUpload(id)
        awaitingUploads[id] = nil
        waiting.expiry.cancel()
        guard calls.removeValue(forKey: waiting.key) != nil else {
            return BridgeBytesSchemeHandler.refuse(task, 404, origin: origin, "the call is no longer pending")
        }
        let answer = Answer.uploaded(waiting.key, task: task, origin: waiting.sender.origin)
        let sizes = waiting.inbound.binaryParts
        let total = sizes.reduce(0, +)
        guard let body = request.body ?? (total == 0 ? Data() : nil), body.count == total else {
            let error = BridgeError.badArguments(
                "the upload held \(request.body?.count ?? 0) bytes, not the \(total) the call announced")
            return settle(
                answer, .failure(error),
                origin: CallOrigin(module: waiting.target.module.name, started: waiting.started))
        }
        run(
            waiting.target, waiting.inbound, sender: waiting.sender, started: waiting.started, answer: answer,
            incoming: Self.split(body, sizes))
    }

    /// The parts of one upload; a single part is the body itself, with no copy.
    static func split(_ body: Data, _ sizes: [Int]) -> [Data] {
        guard sizes.count > 1 else { return [body] }
        var parts: [Data] = []
        var offset = body.startIndex
        for size in sizes {
            // A copy each: a slice keeps its parent's indices, which a method indexing from 0 would trip over.
            parts.append(Data(body[offset..<offset + size]))
            offset += size
        }
        return parts
    }

    private func uploadExpired(_ id: String, after limit: Duration) {
        guard let waiting = awaitingUploads.removeValue(forKey: id) else { return }
        bytesHandler?.forgetUpload(id)
        guard let call = calls.removeValue(forKey: waiting.key) else { return }
        logger.warning(
            "a binary call's bytes did not arrive within \(limit): the call failed with timeout",
            metadata: ["call": "\(waiting.target.module.name).\(waiting.target.name)"])
        settle(
            .delivered(waiting.key, frame: waiting.inbound.frame, reply: call.reply),
            .failure(BridgeError(.timeout, "the call's bytes did not arrive within \(limit)")),
            origin: CallOrigin(module: waiting.target.module.name, started: waiting.started))
    }

    /// Drops every awaited upload (navigation, close): their calls are failed by the caller.
    func forgetUploads() {
        for (id, waiting) in awaitingUploads {
            waiting.expiry.cancel()
            bytesHandler?.forgetUpload(id)
        }
        awaitingUploads.removeAll()
    }

    /// Where the `Data` of an answer for `origin` goes; nil where bytes cannot go.
    func outgoing(for answer: Answer, origin: String) -> BinaryCoding.Outgoing? {
        guard bytesHandler != nil, answer.carriesBytes else { return nil }
        return BinaryCoding.Outgoing(store: redemptions, owner: origin)
    }

    /// Bytes held for pages now, and uploads awaited (for tests and diagnostics).
    public var heldBinaryBytes: Int { redemptions.heldBytes }
    public var awaitedUploadCount: Int { awaitingUploads.count }
    /// Pending calls whose bytes the page has not uploaded yet (for tests).
    var awaitedUploadIDs: [String] { Array(awaitingUploads.keys) }
}

extension BridgeEngine.Answer {
    /// Whether its answer can hold bytes: a synchronous call's cannot (the page is blocked in a prompt and cannot
    /// fetch them).
    var carriesBytes: Bool {
        if case .prompt = self { return false }
        return true
    }
}
