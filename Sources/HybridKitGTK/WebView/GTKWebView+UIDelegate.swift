#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit

typealias CreateCallback = @GTKActor (OpaquePointer) -> Void
typealias ScriptDialogCallback = @GTKActor (OpaquePointer) -> Bool
typealias ResourceStartedCallback = @GTKActor (UnsafeMutablePointer<WebKitWebResource>) -> Void
typealias ResourceFailedCallback = @GTKActor (UnsafeMutablePointer<WebKitWebResource>, String, Bool) -> Void

extension GTKWebView {
    public var uiDelegate: (any EngineUIDelegate)? {
        get { ui.delegate }
        set { ui.delegate = newValue }
    }

    /// Connects `create` (new windows), `script-dialog` and `resource-load-started`. Each callback holds the view
    /// weakly.
    func connectUISignals() {
        let view = UnsafeMutableRawPointer(webView)

        // `window.open` and accepted `target=_blank` actions. The port has no way to hand back a view, so the
        // engine never creates one: the navigation delegate hears the request, and the page gets `null` at once.
        let create: @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> UnsafeMutablePointer<GtkWidget>? = {
            _, action, data in
            guard let action, let handle = SignalBox<CreateCallback>.from(data) else { return nil }
            GTKActor.assumeIsolated { handle(action) }
            return nil
        }
        viewSignals.append(
            connectSignal(
                view, "create", handler: unsafeBitCast(create, to: GCallback.self), as: CreateCallback.self,
                callback: { [weak self] (action: OpaquePointer) in self?.requestNewWindow(action) }))

        let dialog: @convention(c) (gpointer?, OpaquePointer?, gpointer?) -> gboolean = { _, dialog, data in
            guard let dialog, let handle = SignalBox<ScriptDialogCallback>.from(data) else { return 0 }
            return GTKActor.assumeIsolated { handle(dialog) } ? 1 : 0
        }
        viewSignals.append(
            connectSignal(
                view, "script-dialog", handler: unsafeBitCast(dialog, to: GCallback.self),
                as: ScriptDialogCallback.self,
                callback: { [weak self] (dialog: OpaquePointer) -> Bool in self?.runScriptDialog(dialog) ?? false }))

        let resource:
            @convention(c) (
                gpointer?, UnsafeMutablePointer<WebKitWebResource>?, UnsafeMutablePointer<WebKitURIRequest>?, gpointer?
            ) -> Void = { _, resource, _, data in
                guard let resource, let handle = SignalBox<ResourceStartedCallback>.from(data) else { return }
                GTKActor.assumeIsolated { handle(resource) }
            }
        viewSignals.append(
            connectSignal(
                view, "resource-load-started", handler: unsafeBitCast(resource, to: GCallback.self),
                as: ResourceStartedCallback.self,
                callback: { [weak self] (resource: UnsafeMutablePointer<WebKitWebResource>) in
                    self?.watchResource(resource)
                }))
        GTKDownloads.shared.register(self, engineView: view)
    }

    private func requestNewWindow(_ action: OpaquePointer) {
        guard let request = webkit_navigation_action_get_request(action) else { return }
        let navigation = NavigationAction(
            request: GTKWebView.engineRequest(request),
            kind: .other, isMainFrame: true, opensNewWindow: true,
            isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0)
        // The answer does not matter: there is no window to allow into. The delegate acts on the request.
        _ = currentDelegate?.decidePolicy(for: navigation)
    }

    private func runScriptDialog(_ dialog: OpaquePointer) -> Bool {
        let kind = GTKScriptDialogReply.kind(of: dialog)
        let reply = GTKScriptDialogReply(dialog: dialog, kind: kind) { [weak self] reply in
            self?.ui.openDialogs[ObjectIdentifier(reply)] = nil
        }
        ui.openDialogs[ObjectIdentifier(reply)] = reply
        let raw = borrowGString(webkit_script_dialog_get_message(dialog)) ?? ""
        // A prompt the extension made for a frame arrives stamped with that frame; any other dialog's frame is
        // unknown here (WebKitGTK does not say which frame opened it).
        let stamped = kind.isPrompt ? GTKSyncPrompt(raw, secret: GTKWebContext.shared.syncPromptSecret) : nil
        let scriptDialog = ScriptDialog(
            kind: kind, message: stamped?.text ?? raw,
            pageURL: borrowGString(webkit_web_view_get_uri(webView)).flatMap(URL.init(string:)),
            frame: stamped?.frame)
        // Without a delegate the page still gets an answer: never GTK's own modal dialog, which nobody would see.
        if let delegate = ui.delegate {
            delegate.runScriptDialog(scriptDialog, reply: reply)
        } else {
            reply.answer(ScriptDialogDefaults().answer(for: scriptDialog))
        }
        return true
    }

    private func watchResource(_ resource: UnsafeMutablePointer<WebKitWebResource>) {
        let failed: @convention(c) (gpointer?, UnsafeMutablePointer<GError>?, gpointer?) -> Void = {
            object, error, data in
            guard let object, let handle = SignalBox<ResourceFailedCallback>.from(data) else { return }
            let message = error?.pointee.message.map { String(cString: $0) } ?? "unknown error"
            let cancelled =
                error.map {
                    $0.pointee.domain == webkit_network_error_quark()
                        && $0.pointee.code == gint(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue)
                } ?? false
            let resource = object.assumingMemoryBound(to: WebKitWebResource.self)
            GTKActor.assumeIsolated { handle(resource, message, cancelled) }
        }
        // The connection lives as long as the resource object; GLib releases the box with it.
        connectSignal(
            UnsafeMutableRawPointer(resource), "failed", handler: unsafeBitCast(failed, to: GCallback.self),
            as: ResourceFailedCallback.self,
            callback: {
                [weak self] (resource: UnsafeMutablePointer<WebKitWebResource>, message: String, cancelled: Bool) in
                self?.resourceFailed(resource, error: message, cancelled: cancelled)
            })
    }

    private func resourceFailed(_ resource: UnsafeMutablePointer<WebKitWebResource>, error: String, cancelled: Bool) {
        // The main resource's failure is the navigation's (`didFailNavigation`).
        if webkit_web_view_get_main_resource(webView) == resource { return }
        let url = borrowGString(webkit_web_resource_get_uri(resource)).flatMap(URL.init(string:))
        ui.delegate?.didFailSubresourceLoad(SubresourceLoadFailure(url: url, error: error, isCancellation: cancelled))
    }

    func reportDownload(_ download: EngineDownload) {
        ui.delegate?.didRecognizeDownload(download)
    }
}
#endif
