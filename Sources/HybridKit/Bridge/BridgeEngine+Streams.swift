/// Streams on the bridge's side: opening (through the one invocation path), the producer's elements, the page's
/// pulls and cancels. What is buffered and owed is ``StreamTable``'s; this sends what it decides.
extension BridgeEngine {
    /// Opens a stream: a stream method's elements, or any other method's one result as a one-element stream
    /// (so DSBridge's callbacks, which may answer many times, can read either kind). The opening message is
    /// also the page's first request for elements.
    func openStream(_ inbound: InboundMessage, sender: Sender, reply: (any ScriptMessageReply)?) {
        let key = CallKey(token: inbound.token, id: inbound.id)
        let pull = streams.pullCount(inbound.payload)
        invoke(
            inbound, sender: sender, started: .now,
            answer: .stream(key, frame: inbound.frame, reply: reply, pull: pull))
    }

    /// Opens `key` and starts its producer, in a task of its own: no time limit (the page reads at its pace).
    func openStream(
        _ key: CallKey, frame: InboundMessage.Frame, reply: (any ScriptMessageReply)?, pull: Int,
        work: Invocation.Work
    ) {
        let sink = BridgeStreamSink(bridge: self, token: key.token, id: key.id)
        let produce: @Sendable () async throws -> Void
        switch work {
        case .value(let value): produce = { try await sink.finish(try await value()) }
        case .stream(let body): produce = { try await body(sink) }
        }
        streams.open(key, frame: frame, pull: pull, reply: reply)
        let task = Task { [weak self] in
            let outcome: Result<Void, any Error>
            do {
                try await produce()
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            self?.streamEnded(key, outcome)
        }
        streams.attach(task, to: key)
    }

    /// The producer's side: queues one element, suspending while a whole window waits for the page.
    func streamElement(token: String, id: Int, json: String, last: Bool = false) async throws {
        let key = CallKey(token: token, id: id)
        while streams.isFull(key) {
            await withCheckedContinuation { continuation in
                streams.waitForRoom(key, continuation)
            }
        }
        guard streams.contains(key), !Task.isCancelled else { throw CancellationError() }
        streams.append(json, to: key, last: last)
        if last { statistics.succeeded += 1 }
        answerPull(key)
    }

    private func streamEnded(_ key: CallKey, _ outcome: Result<Void, any Error>) {
        // Gone (delivered, cancelled) or already ended with its last element.
        guard streams.isRunning(key) else { return }
        switch outcome {
        case .success:
            statistics.succeeded += 1
            streams.end(key, with: .success(()))
        case .failure(let error):
            statistics.failed += 1
            streams.end(key, with: .failure(pageError(for: error)))
        }
        answerPull(key)
    }

    func pullStream(_ inbound: InboundMessage, reply: (any ScriptMessageReply)?) {
        let key = CallKey(token: inbound.token, id: inbound.id)
        guard streams.pull(key, count: streams.pullCount(inbound.payload), reply: reply) else {
            // Not open (ended, cancelled, never opened) or already asked: say it is over.
            deliver(
                OutboundMessage.streamChunk(
                    token: key.token, id: key.id, elements: [],
                    end: .failure(BridgeError.badMessage("stream \(inbound.id) is not open or already asked"))),
                reply: reply, frame: inbound.frame)
            return
        }
        answerPull(key)
    }

    /// Answers the page's outstanding request when there is something to send, and lets the producer go on.
    private func answerPull(_ key: CallKey) {
        guard let chunk = streams.answerPull(key) else { return }
        // Elements are encoded apart from their chunk: when bytes were ever answered, look for their placeholders.
        var message = chunk.message
        if redemptions.everRegistered, BinaryCoding.mentionsBytes(message), message.hasSuffix("}") {
            message = String(message.dropLast()) + #","b":1}"#
        }
        deliver(message, reply: chunk.reply, frame: chunk.frame)
    }

    /// The page stopped reading: the producer is cancelled and nothing more is sent.
    func cancelStream(_ key: CallKey, reply: (any ScriptMessageReply)?) {
        streams.cancel(key)
        reply?.resolve(json: "[]")
    }

    /// Streams open now.
    public var openStreamCount: Int { streams.count }
}
