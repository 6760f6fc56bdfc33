import Foundation

/// Hears what a page asks of its host besides navigating: dialogs, downloads, failed sub-resources.
/// Called on the engine's actor; every method has a default that never leaves the page waiting.
///
/// New windows (`target=_blank`, `window.open`) reach ``NavigationDelegate/decidePolicy(for:)-(NavigationAction)``
/// with ``NavigationAction/opensNewWindow`` set; engines never create a window on their own.
@EngineActor
public protocol EngineUIDelegate: AnyObject, Sendable {
    /// Answer through `reply`, now or later. The adapter answers with the default if the view closes first.
    func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply)
    /// The engine met a response it will not show (see ``EngineDownload``); it has already stopped loading it.
    func didRecognizeDownload(_ download: EngineDownload)
    func didFailSubresourceLoad(_ failure: SubresourceLoadFailure)
    /// The page's main frame called `window.close()` (heard by the bridge runtime: engines ignore it for
    /// windows scripts did not open). The host decides whether to dismiss the page.
    func pageDidRequestClose()
}

extension EngineUIDelegate {
    public func runScriptDialog(_ dialog: ScriptDialog, reply: any ScriptDialogReply) {
        reply.answer(ScriptDialogDefaults().answer(for: dialog))
    }
    public func didRecognizeDownload(_ download: EngineDownload) {}
    public func didFailSubresourceLoad(_ failure: SubresourceLoadFailure) {}
    public func pageDidRequestClose() {}
}

/// The answers a dialog gets when nobody else answers it (no host, a host that timed out, a closed view).
public struct ScriptDialogDefaults: Sendable, Equatable {
    public var confirm: Bool
    /// `nil` makes `prompt()` return `null`, as when the user cancels.
    public var promptText: String?
    /// Whether the page may be left when nobody answers a before-unload dialog.
    public var leavePage: Bool

    public init(confirm: Bool = false, promptText: String? = nil, leavePage: Bool = true) {
        self.confirm = confirm
        self.promptText = promptText
        self.leavePage = leavePage
    }

    public func answer(for dialog: ScriptDialog) -> ScriptDialogAnswer {
        switch dialog.kind {
        case .alert: .dismissed
        case .confirm: .confirmed(confirm)
        case .prompt: .text(promptText)
        case .beforeUnload: .confirmed(leavePage)
        }
    }
}
