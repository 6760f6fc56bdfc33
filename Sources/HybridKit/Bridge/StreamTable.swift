/// The open streams of a bridge, by the page's token and call id: each one's elements read ahead of the page (at
/// most a window: back-pressure), the page's outstanding request for more (a pull), and the producer waiting for
/// room.
///
/// Owned and mutated by the ``BridgeEngine`` actor only: the table decides what to send, the engine sends it.
struct StreamTable {
    /// One stream.
    private struct Stream {
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

    /// Elements sent to the page in answer to a pull.
    struct Chunk {
        let message: String
        let reply: (any ScriptMessageReply)?
        let frame: InboundMessage.Frame
    }

    /// Elements read ahead of the page, at most (``BridgeLimits/streamWindow``).
    let window: Int
    private var streams: [CallKey: Stream] = [:]

    init(window: Int) { self.window = window }

    var count: Int { streams.count }

    func contains(_ key: CallKey) -> Bool { streams[key] != nil }

    /// The number of elements a pull asks for: the window when the payload says nothing sensible.
    func pullCount(_ payload: Substring.UTF8View) -> Int {
        guard let count = Int(String(decoding: payload, as: UTF8.self)), count > 0 else { return window }
        return min(count, window)
    }

    /// Opens `key`; the opening message is also the page's first request for `pull` elements.
    mutating func open(_ key: CallKey, frame: InboundMessage.Frame, pull: Int, reply: (any ScriptMessageReply)?) {
        streams[key] = Stream(frame: frame, pull: (count: pull, reply: reply))
    }

    /// Keeps the producer's task, so the page, a navigation or close can cancel it.
    mutating func attach(_ task: Task<Void, Never>, to key: CallKey) { streams[key]?.task = task }

    /// Whether the producer of `key` must wait: a whole window waits for the page.
    func isFull(_ key: CallKey) -> Bool {
        guard let stream = streams[key] else { return false }
        return stream.buffer.count >= window
    }

    /// Parks the producer of `key` until the page makes room.
    mutating func waitForRoom(_ key: CallKey, _ continuation: CheckedContinuation<Void, Never>) {
        streams[key]?.room = continuation
    }

    /// Queues one element; a last one ends the stream with it (a one-result stream costs the page one request,
    /// not two).
    mutating func append(_ json: String, to key: CallKey, last: Bool) {
        streams[key]?.buffer.append(json)
        if last { streams[key]?.end = .success(()) }
    }

    /// Whether `key` is open and not yet ended (a last element ends it before its producer returns).
    func isRunning(_ key: CallKey) -> Bool {
        guard let stream = streams[key] else { return false }
        return stream.end == nil
    }

    /// Ends `key`: the end goes to the page after the buffered elements.
    mutating func end(_ key: CallKey, with end: Result<Void, BridgeError>) { streams[key]?.end = end }

    /// Records the page's request for more; false when the stream is not open or the page already asked.
    mutating func pull(_ key: CallKey, count: Int, reply: (any ScriptMessageReply)?) -> Bool {
        guard streams[key] != nil, streams[key]?.pull == nil else { return false }
        streams[key]?.pull = (count: count, reply: reply)
        return true
    }

    /// Answers the page's outstanding request when there is something to send, and lets the producer go on;
    /// the chunk is for the caller to deliver. A stream whose end went out is removed.
    mutating func answerPull(_ key: CallKey) -> Chunk? {
        guard var stream = streams[key], let pull = stream.pull, !stream.buffer.isEmpty || stream.end != nil else {
            return nil
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
        return Chunk(
            message: OutboundMessage.streamChunk(token: key.token, id: key.id, elements: elements, end: end),
            reply: pull.reply, frame: stream.frame)
    }

    /// The page stopped reading: the producer is cancelled (it sees `CancellationError` from the sink, or
    /// `Task.isCancelled`), its outstanding request answered with the end, and nothing more is sent.
    @EngineActor mutating func cancel(_ key: CallKey) {
        guard let stream = streams.removeValue(forKey: key) else { return }
        stream.task?.cancel()
        stream.room?.resume()
        stream.pull?.reply?.resolve(
            json: OutboundMessage.batch([
                OutboundMessage.streamChunk(token: key.token, id: key.id, elements: [], end: .success(()))
            ]))
    }

    /// Cancels the streams of the document with `token` (it went away), as ``cancel(_:)`` does each.
    @EngineActor mutating func cancelAll(token: String) {
        for key in streams.keys where key.token == token { cancel(key) }
    }

    /// Ends every stream with `error` (navigation, close): producers cancelled, outstanding requests told.
    @EngineActor mutating func failAll(_ error: BridgeError) {
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
    }
}
