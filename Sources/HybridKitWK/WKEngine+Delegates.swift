#if canImport(WebKit) || os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit
#if os(Linux)
import WebKitStandIn
#else
import WebKit
#endif

// The async forms of the WKUIDelegate and WKDownloadDelegate methods are used, and the decision handlers are
// spelled exactly as the Swift 6 SDK imports them (@MainActor @Sendable): an optional requirement whose
// signature does not match is never called, silently.

extension WKEngine: WKNavigationDelegate {
    public func webView(
        _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
        decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void
    ) {
        let request = navigationAction.request
        let action = NavigationAction(
            request: EngineRequest(
                url: request.url ?? URL(fileURLWithPath: "/"), method: request.httpMethod ?? "GET",
                headers: (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                body: request.httpBody),
            kind: Self.kind(navigationAction.navigationType),
            isMainFrame: navigationAction.targetFrame?.isMainFrame ?? true,
            opensNewWindow: navigationAction.targetFrame == nil,
            isUserGesture: Self.isUserGesture(navigationAction))
        let allowed = navigationDelegate?.decidePolicy(for: action) != .cancel
        // `<a download>`: the action itself says so; the download then reaches `didBecome download`.
        decisionHandler(allowed ? (navigationAction.shouldPerformDownload ? .download : .allow) : .cancel)
    }

    public func webView(
        _ webView: WKWebView, decidePolicyFor navigationResponse: WKNavigationResponse,
        decisionHandler: @escaping @MainActor @Sendable (WKNavigationResponsePolicy) -> Void
    ) {
        let http = navigationResponse.response as? HTTPURLResponse
        let response = NavigationResponse(
            url: navigationResponse.response.url ?? URL(fileURLWithPath: "/"),
            statusCode: http?.statusCode ?? 200,
            mimeType: navigationResponse.response.mimeType, isMainFrame: navigationResponse.isForMainFrame,
            canShowMIMEType: navigationResponse.canShowMIMEType,
            headers: (http?.allHeaderFields ?? [:]).map { ("\($0.key)", "\($0.value)") },
            suggestedFilename: navigationResponse.response.suggestedFilename)
        let fallback: NavigationResponsePolicy = response.canShowMIMEType ? .allow : .download
        switch navigationDelegate?.decidePolicy(for: response) ?? fallback {
        case .allow: decisionHandler(.allow)
        case .cancel: decisionHandler(.cancel)
        case .download: decisionHandler(.download)
        }
    }

    public func webView(
        _ webView: WKWebView, navigationResponse: WKNavigationResponse, didBecome download: WKDownload
    ) {
        download.delegate = self
    }

    public func webView(
        _ webView: WKWebView, navigationAction: WKNavigationAction, didBecome download: WKDownload
    ) {
        download.delegate = self
    }

    public func webView(_ webView: WKWebView, didStartProvisionalNavigation navigation: WKNavigation!) {
        navigationDelegate?.didStartNavigation(to: webView.url)
    }

    public func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {
        navigationDelegate?.didCommitNavigation(to: webView.url)
    }

    public func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
        navigationDelegate?.didFinishNavigation(to: webView.url)
    }

    public func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error) {
        navigationDelegate?.didFailNavigation(to: webView.url, error: error.localizedDescription)
    }

    public func webView(
        _ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error
    ) {
        navigationDelegate?.didFailNavigation(to: webView.url, error: error.localizedDescription)
    }

    public func webViewWebContentProcessDidTerminate(_ webView: WKWebView) {
        navigationDelegate?.webProcessDidTerminate(reason: .crashed)
    }

    /// WKWebView has no user-gesture flag: a click on a link or a form submission (`linkActivated`,
    /// `formSubmitted`) counts as one, and on macOS so does any navigation a mouse button caused
    /// (`buttonNumber`; on iOS that property needs iOS 18.4). A page can imitate both (`a.click()`,
    /// `form.submit()`), as it can on WebKitGTK: a convenience for hosts, never a security signal.
    static func isUserGesture(_ action: WKNavigationAction) -> Bool {
        switch action.navigationType {
        case .linkActivated, .formSubmitted: return true
        default:
            #if os(macOS)
            return action.buttonNumber > 0
            #else
            return false
            #endif
        }
    }

    private static func kind(_ type: WKNavigationType) -> NavigationAction.Kind {
        switch type {
        case .linkActivated: .linkActivated
        case .formSubmitted: .formSubmitted
        case .backForward: .backForward
        case .reload: .reload
        case .formResubmitted: .formResubmitted
        default: .other
        }
    }
}

extension WKEngine: WKUIDelegate {
    /// `window.open` (and `target=_blank` actions the navigation delegate allowed): the navigation delegate
    /// hears the request; no WKWebView is created, so the page gets `null` at once.
    public func webView(
        _ webView: WKWebView, createWebViewWith configuration: WKWebViewConfiguration,
        for navigationAction: WKNavigationAction, windowFeatures: WKWindowFeatures
    ) -> WKWebView? {
        let action = NavigationAction(
            request: EngineRequest(url: navigationAction.request.url ?? URL(fileURLWithPath: "/")),
            kind: .other, isMainFrame: true, opensNewWindow: true,
            isUserGesture: Self.isUserGesture(navigationAction))
        _ = navigationDelegate?.decidePolicy(for: action)
        return nil
    }

    public func webView(
        _ webView: WKWebView, runJavaScriptAlertPanelWithMessage message: String,
        initiatedByFrame frame: WKFrameInfo
    ) async {
        _ = await runDialog(ScriptDialog(kind: .alert, message: message, pageURL: webView.url))
    }

    public func webView(
        _ webView: WKWebView, runJavaScriptConfirmPanelWithMessage message: String,
        initiatedByFrame frame: WKFrameInfo
    ) async -> Bool {
        let answer = await runDialog(ScriptDialog(kind: .confirm, message: message, pageURL: webView.url))
        if case .confirmed(let value) = answer { return value }
        return false
    }

    public func webView(
        _ webView: WKWebView, runJavaScriptTextInputPanelWithPrompt prompt: String, defaultText: String?,
        initiatedByFrame frame: WKFrameInfo
    ) async -> String? {
        // WebKit names the frame: the bridge answers synchronous calls for it, as for its messages.
        let origin = frame.securityOrigin
        let dialog = ScriptDialog(
            kind: .prompt(defaultText: defaultText ?? ""), message: prompt, pageURL: webView.url,
            frame: FrameInfo(
                url: frame.request.url,
                securityOrigin: MessageProxy.serializedOrigin(
                    protocol: origin.protocol, host: origin.host, port: origin.port),
                isMainFrame: frame.isMainFrame))
        if case .text(let text) = await runDialog(dialog) { return text }
        return nil
    }

    private func runDialog(_ dialog: ScriptDialog) async -> ScriptDialogAnswer {
        guard !closed, let delegate = uiDelegateStorage else { return ScriptDialogDefaults().answer(for: dialog) }
        return await withCheckedContinuation { continuation in
            let reply = WKScriptDialogReply { continuation.resume(returning: $0) }
            openDialogs.removeAll { $0.reply == nil || $0.reply?.isSettled == true }
            openDialogs.append(OpenDialog(reply: reply, dialog: dialog))
            delegate.runScriptDialog(dialog, reply: reply)
        }
    }
}

/// A dialog the UI delegate was asked to answer, until it does (``WKEngine/close()`` answers the rest).
struct OpenDialog {
    weak var reply: WKScriptDialogReply?
    let dialog: ScriptDialog
}

/// Resumes the WebKit dialog call once; later answers are ignored (`ScriptDialogReply`'s contract). A reply
/// dropped unanswered answers with the defaults, so WebKit's completion handler is always called.
@MainActor
final class WKScriptDialogReply: ScriptDialogReply {
    private var resume: (@Sendable (ScriptDialogAnswer) -> Void)?

    init(_ resume: @escaping @Sendable (ScriptDialogAnswer) -> Void) { self.resume = resume }

    func answer(_ answer: ScriptDialogAnswer) { settle(answer) }

    private func settle(_ answer: ScriptDialogAnswer) {
        let resume = self.resume
        self.resume = nil
        resume?(answer)
    }

    var isSettled: Bool { resume == nil }

    // Not `isolated deinit` (it needs a newer runtime than the package's iOS 18 / macOS 15): the stored
    // closure is Sendable and resuming a continuation is allowed from any thread.
    deinit { resume?(.dismissed) }
}

extension WKEngine: WKDownloadDelegate {
    /// Reports the download and declines a destination, which cancels it: the engine saves nothing itself.
    public func download(
        _ download: WKDownload, decideDestinationUsing response: URLResponse, suggestedFilename: String
    ) async -> URL? {
        if let url = response.url ?? download.originalRequest?.url {
            uiDelegateStorage?.didRecognizeDownload(
                EngineDownload(
                    url: url, suggestedFilename: suggestedFilename.isEmpty ? nil : suggestedFilename,
                    mimeType: response.mimeType))
        }
        return nil
    }
}
#endif
