#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import HybridKit

/// What the UI-delegate side of a ``GTKWebView`` keeps: the delegate and the dialogs still open.
@GTKActor
final class GTKUIState {
    weak var delegate: (any EngineUIDelegate)?
    var openDialogs: [ObjectIdentifier: GTKScriptDialogReply] = [:]

    /// The view is going away: the page must not wait for dialogs nobody will answer.
    func close() {
        let dialogs = openDialogs.values
        openDialogs.removeAll()
        for dialog in dialogs { dialog.close() }
        delegate = nil
    }
}
#endif
