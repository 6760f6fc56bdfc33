extension BridgeEngine {
    /// The runtime's own methods (`hybrid.has`, `window.close()`), under a name no host module can take.
    static let builtinModule = "$hybrid"

    /// Runs one of the runtime's own methods; they answer calls and synchronous calls (see ``invoke``).
    func builtin(_ inbound: InboundMessage, sender: Sender) -> Result<String, any Error> {
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
}
