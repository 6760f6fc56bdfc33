#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import HybridKit

/// Answers one `WebKitScriptDialog` the view kept (`webkit_script_dialog_ref`). The answer is written at once;
/// the dialog is closed on a later turn of the main loop, never inside the `script-dialog` emission that
/// created it (WebKit still holds it there), or at once when the view closes.
///
/// GTK-isolated, like the view and the port's requirement.
@GTKActor
final class GTKScriptDialogReply: ScriptDialogReply {
    private var dialog: OpaquePointer?
    private var answered = false
    private let kind: ScriptDialog.Kind
    private let onClosed: @GTKActor (GTKScriptDialogReply) -> Void

    init(dialog: OpaquePointer, kind: ScriptDialog.Kind, onClosed: @escaping @GTKActor (GTKScriptDialogReply) -> Void) {
        webkit_script_dialog_ref(dialog)
        self.dialog = dialog
        self.kind = kind
        self.onClosed = onClosed
    }

    func answer(_ answer: ScriptDialogAnswer) {
        guard !answered, let dialog else { return }
        answered = true
        switch (kind, answer) {
        case (.confirm, .confirmed(let value)), (.beforeUnload, .confirmed(let value)):
            webkit_script_dialog_confirm_set_confirmed(dialog, value ? 1 : 0)
        case (.prompt, .text(let text)):
            // A prompt closed without text returns null, as when the user cancels.
            if let text { webkit_script_dialog_prompt_set_text(dialog, text) }
        default: break
        }
        Task { @GTKActor in self.close() }
    }

    /// Closes the dialog (the page resumes) and drops the reference. Idempotent.
    func close() {
        guard let dialog else { return }
        self.dialog = nil
        answered = true
        webkit_script_dialog_close(dialog)
        webkit_script_dialog_unref(dialog)
        onClosed(self)
    }

    static func kind(of dialog: OpaquePointer) -> ScriptDialog.Kind {
        switch webkit_script_dialog_get_dialog_type(dialog) {
        case WEBKIT_SCRIPT_DIALOG_CONFIRM: .confirm
        case WEBKIT_SCRIPT_DIALOG_PROMPT:
            .prompt(defaultText: borrowGString(webkit_script_dialog_prompt_get_default_text(dialog)) ?? "")
        case WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM: .beforeUnload
        default: .alert
        }
    }
}
#endif
