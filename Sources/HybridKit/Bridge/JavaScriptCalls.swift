/// Native → page calls (``BridgeEngine/callJavaScript(_:_:as:timeout:)``) waiting for the page's answer.
///
/// Ids are random (a frame that could guess one could answer in the page's place), and an answer counts only
/// from the main-frame document the call was sent to. Owned and mutated by the ``BridgeEngine`` actor only.
struct JavaScriptCalls {
    private struct Pending {
        let continuation: CheckedContinuation<String, any Error>
        let handler: String
        let json: String
        /// The main-frame document the call was sent to; nil while it waits for one to say hello.
        var token: String?
    }

    private var calls: [Int: Pending] = [:]
    /// The token of the main frame's current document, learnt from its hello; nil between a navigation and
    /// the new document's hello. Calls are addressed to it.
    private(set) var mainDocumentToken: String?

    /// A call id no frame can guess, exact in a JavaScript number (below 2^53), and not in use.
    func freshID() -> Int {
        while true {
            let id = Int.random(in: 1..<(1 << 53))
            if calls[id] == nil { return id }
        }
    }

    /// Records a call; returns the message that sends it, or nil while no main-frame document listens (it goes
    /// to the next one that says hello).
    mutating func add(
        _ id: Int, handler: String, json: String, continuation: CheckedContinuation<String, any Error>
    ) -> String? {
        calls[id] = Pending(continuation: continuation, handler: handler, json: json, token: mainDocumentToken)
        guard let token = mainDocumentToken else { return nil }
        return OutboundMessage.jsCall(token: token, id: id, handler: handler, json: json)
    }

    /// A new main-frame document said hello: calls made while none listened go to it; returns their messages.
    mutating func mainDocumentSaidHello(token: String) -> [String] {
        mainDocumentToken = token
        var messages: [String] = []
        for (id, call) in calls where call.token == nil {
            calls[id]?.token = token
            messages.append(OutboundMessage.jsCall(token: token, id: id, handler: call.handler, json: call.json))
        }
        return messages
    }

    /// The main frame committed a new document: nothing is addressed to the old one any more.
    mutating func mainDocumentWentAway() { mainDocumentToken = nil }

    /// Whether the page may answer call `id`: only the document that was called (same id, same document token,
    /// the main frame).
    func accepts(_ id: Int, token: String, isMainFrame: Bool) -> Bool {
        guard isMainFrame, let call = calls[id] else { return false }
        return call.token == token
    }

    /// Answers call `id` (the page's answer or a timeout), once.
    mutating func resume(_ id: Int, with outcome: Result<String, any Error>) {
        calls.removeValue(forKey: id)?.continuation.resume(with: outcome)
    }

    /// Fails every call (navigation, close).
    mutating func failAll(_ error: BridgeError) {
        let pending = calls
        calls.removeAll()
        for (_, call) in pending { call.continuation.resume(throwing: error) }
    }

    /// The page's answer as the caller's outcome: its JSON, or its error (a code it names, else `internal`).
    static func outcome(ofReply payload: Substring.UTF8View) -> Result<String, any Error> {
        struct Reply: Decodable {
            let ok: Bool
            let r: JSONValue?
            let e: PageError?
        }
        struct PageError: Decodable {
            let code: String
            let message: String
        }
        do {
            let reply = try BridgeMethod.decode(Reply.self, from: payload)
            if reply.ok { return .success(try BridgeMethod.encode(reply.r ?? .null)) }
            let code = BridgeError.Code(rawValue: reply.e?.code ?? "") ?? .internalError
            return .failure(BridgeError(code, reply.e?.message ?? "the page handler failed"))
        } catch {
            return .failure(error)
        }
    }
}
