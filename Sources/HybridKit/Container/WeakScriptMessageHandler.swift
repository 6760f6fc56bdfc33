/// What the engine holds instead of a host's handler: the handler weakly, so an engine never keeps its
/// owner alive (WKUserContentController retains its handlers, which would close a cycle).
final class WeakScriptMessageHandler: ScriptMessageHandler, Sendable {
    private weak let target: (any ScriptMessageHandler)?

    init(_ target: any ScriptMessageHandler) { self.target = target }

    func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
        guard let target else {
            reply?.reject(message: "the handler '\(message.name)' is gone")
            return
        }
        target.didReceive(message, reply: reply)
    }
}
