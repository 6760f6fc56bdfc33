/// Messages for the main frame waiting to go out together: the answers to one post, or everything else produced
/// in one turn of the engine's loop, travel in one evaluation.
///
/// Owned and mutated by the ``BridgeEngine`` actor only; it says when to flush, the engine evaluates the script.
struct Outbox {
    /// What the owner does after a message is queued.
    enum Next {
        case nothing
        /// The batch reached ``maxBatchBytes``: send it now.
        case flushNow
        /// The first message since the last flush: send the batch at the end of this turn of the loop.
        case scheduleFlush
    }

    /// A batch larger than this goes out at once rather than growing: one huge evaluation costs more
    /// (script parse, peak memory) than a few medium ones.
    static let maxBatchBytes = 1 << 20

    /// Authenticates native's evaluations to the runtime: the page's own scripts can call the receiver
    /// function too, but cannot read this (it lives in the runtime's closure and in native's scripts only).
    let deliveryKey: String
    /// The runtime's receiver function (``BridgeConfiguration/receiverName``).
    let receiverName: String
    private var messages: [String] = []
    private var bytes = 0
    private var flushScheduled = false

    init(deliveryKey: String, receiverName: String) {
        self.deliveryKey = deliveryKey
        self.receiverName = receiverName
    }

    var isEmpty: Bool { messages.isEmpty }

    /// Queues `message`; the caller acts on the answer.
    mutating func append(_ message: String) -> Next {
        messages.append(message)
        bytes += message.utf8.count
        if bytes >= Self.maxBatchBytes { return .flushNow }
        guard !flushScheduled else { return .nothing }
        flushScheduled = true
        return .scheduleFlush
    }

    /// How a batch reaches the main frame's runtime.
    enum Delivery: Equatable {
        /// A script to evaluate: the batch as a string literal in a call with one JSON argument.
        case evaluate(String)
        /// A page function to call with arguments: the batch as a string value the engine hands over as it is.
        case call(body: String, arguments: [String: JavaScriptArgument])
    }

    /// Empties the outbox into what delivers it; nil when there was nothing to send.
    ///
    /// The batch travels as a string the runtime parses with JSON.parse, never as JavaScript source: an object
    /// literal would turn a "__proto__" key into a prototype, where every other frame (which parses its replies)
    /// keeps it as a key. Below `functionCallThreshold` bytes it is evaluated as one JSON argument, an array of two
    /// strings: JavaScriptCore reads such a call with its JSON parser instead of compiling it, the cheapest round
    /// trip for small batches. (Measured: two arguments, or an array holding the messages as objects, cost about
    /// 50 µs more per evaluation; a megabyte as objects costs over 100 ms.) From the threshold on, the batch is an
    /// argument of a page function instead (``WebEngine/callAsyncJavaScript(_:arguments:)``): no escaping natively,
    /// no string literal for the page's parser, one JSON.parse (`hybrid bench bridge` measures both ways).
    mutating func take(functionCallThreshold: Int) -> Delivery? {
        flushScheduled = false
        defer {
            messages.removeAll(keepingCapacity: true)
            bytes = 0
        }
        guard !messages.isEmpty else { return nil }
        let batch = OutboundMessage.batch(messages)
        if bytes >= functionCallThreshold {
            return .call(
                body: "\(receiverName)([k, b])",
                arguments: ["k": .string(deliveryKey), "b": .string(batch)])
        }
        let literal = OutboundMessage.javaScriptString(batch)
        return .evaluate("\(receiverName)([\(OutboundMessage.quote(deliveryKey)),\(literal)])")
    }

    /// Drops what waits (the document it was for went away). A flush already scheduled still runs, and finds
    /// nothing.
    mutating func discard() {
        messages.removeAll()
        bytes = 0
    }
}
