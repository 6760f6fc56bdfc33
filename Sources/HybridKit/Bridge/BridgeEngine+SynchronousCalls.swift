/// Synchronous calls (`hybrid.callSync`): a prompt the page's main thread is blocked in, answered through the one
/// invocation path with ``BridgeEngine/Answer/prompt(_:)``.
extension BridgeEngine {
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

    /// Reads the prompt's call, checks what a post's handler would have checked, and invokes it.
    private func runSynchronousCall(_ text: String, frame: FrameInfo?, reply: any ScriptDialogReply) {
        let started = ContinuousClock.now
        let answer = Answer.prompt(reply)
        let unattributed = CallOrigin(module: "-", started: started)
        guard !isClosed else {
            return settle(answer, .failure(BridgeError(.closed, "the bridge is closed")), origin: unattributed)
        }
        if frame == nil, engine?.verifiesMessageFrames == true {
            return settle(
                answer, .failure(BridgeError.denied("the engine did not name the calling frame")),
                origin: unattributed)
        }
        let inbound: InboundMessage
        do {
            inbound = try parser.parse(text)
        } catch {
            return settle(answer, .failure(error.error), origin: unattributed)
        }
        guard inbound.kind == .call else {
            return settle(
                answer, .failure(BridgeError.badMessage("a synchronous message must be a call")), origin: unattributed)
        }
        let sender = Sender(inbound, frame: frame)
        if !sender.verified, inbound.frame == .main, let problem = mainFrameOriginProblem(inbound.origin) {
            let requested = CallOrigin(
                module: "-", started: started, requested: (inbound.module, inbound.method), sender: sender)
            return settle(answer, .failure(BridgeError.denied(problem)), origin: requested)
        }
        invoke(inbound, sender: sender, started: started, answer: answer)
    }
}
