#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit

typealias PolicyCallback = @GTKActor (OpaquePointer, WebKitPolicyDecisionType) -> Bool
typealias LoadChangedCallback = @GTKActor (WebKitLoadEvent) -> Void
typealias LoadFailedCallback = @GTKActor (String?, String) -> Void
typealias TerminatedCallback = @GTKActor (WebKitWebProcessTerminationReason) -> Void
typealias UserMessageCallback = @GTKActor (UnsafeMutablePointer<WebKitUserMessage>) -> Bool

extension GTKWebView {
    /// Connects the view's navigation signals to `NavigationDelegate`. Each callback holds the view weakly.
    func connectNavigationSignals() {
        let view = UnsafeMutableRawPointer(webView)

        let decide: @convention(c) (gpointer?, OpaquePointer?, WebKitPolicyDecisionType, gpointer?) -> gboolean = {
            _, decision, type, data in
            guard let decision, let handle = SignalBox<PolicyCallback>.from(data)
            else { return 0 }
            return GTKActor.assumeIsolated { handle(decision, type) } ? 1 : 0
        }
        viewSignals.append(
            connectSignal(
                view, "decide-policy", handler: unsafeBitCast(decide, to: GCallback.self), as: PolicyCallback.self,
                callback: { [weak self] (decision: OpaquePointer, type: WebKitPolicyDecisionType) -> Bool in
                    self?.decidePolicy(decision, type: type) ?? false
                }))

        let loadChanged: @convention(c) (gpointer?, WebKitLoadEvent, gpointer?) -> Void = { _, event, data in
            guard let handle = SignalBox<LoadChangedCallback>.from(data) else { return }
            GTKActor.assumeIsolated { handle(event) }
        }
        viewSignals.append(
            connectSignal(
                view, "load-changed", handler: unsafeBitCast(loadChanged, to: GCallback.self),
                as: LoadChangedCallback.self,
                callback: { [weak self] (event: WebKitLoadEvent) in
                    self?.loadChanged(event)
                }))

        let loadFailed:
            @convention(c) (gpointer?, WebKitLoadEvent, UnsafePointer<gchar>?, UnsafeMutablePointer<GError>?, gpointer?)
                -> gboolean = { _, _, uri, error, data in
                    let message = error?.pointee.message.map { String(cString: $0) } ?? "unknown error"
                    guard let handle = SignalBox<LoadFailedCallback>.from(data) else { return 0 }
                    let url = borrowGString(uri)
                    GTKActor.assumeIsolated { handle(url, message) }
                    return 0
                }
        viewSignals.append(
            connectSignal(
                view, "load-failed", handler: unsafeBitCast(loadFailed, to: GCallback.self),
                as: LoadFailedCallback.self,
                callback: { [weak self] (uri: String?, message: String) in
                    self?.loadFailedSinceStart = true
                    self?.currentDelegate?.didFailNavigation(to: uri.flatMap(URL.init(string:)), error: message)
                }))

        let terminated: @convention(c) (gpointer?, WebKitWebProcessTerminationReason, gpointer?) -> Void = {
            _, reason, data in
            guard let handle = SignalBox<TerminatedCallback>.from(data) else { return }
            GTKActor.assumeIsolated { handle(reason) }
        }
        viewSignals.append(
            connectSignal(
                view, "web-process-terminated", handler: unsafeBitCast(terminated, to: GCallback.self),
                as: TerminatedCallback.self,
                callback: { [weak self] (reason: WebKitWebProcessTerminationReason) in
                    let mapped: WebProcessTerminationReason =
                        switch reason {
                        case WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT: .exceededMemoryLimit
                        case WEBKIT_WEB_PROCESS_TERMINATED_BY_API: .terminatedByAPI
                        default: .crashed
                        }
                    self?.currentDelegate?.webProcessDidTerminate(reason: mapped)
                }))
    }

    /// Posts from the frame-stamping web-process extension arrive as user messages.
    func connectUserMessages() {
        let received: @convention(c) (gpointer?, UnsafeMutablePointer<WebKitUserMessage>?, gpointer?) -> gboolean = {
            _, message, data in
            guard let message, let handle = SignalBox<UserMessageCallback>.from(data) else { return 0 }
            return GTKActor.assumeIsolated { handle(message) } ? 1 : 0
        }
        viewSignals.append(
            connectSignal(
                UnsafeMutableRawPointer(webView), "user-message-received",
                handler: unsafeBitCast(received, to: GCallback.self), as: UserMessageCallback.self,
                callback: { [weak self] message in self?.receiveFramePost(message) ?? false }))
    }

    private func loadChanged(_ event: WebKitLoadEvent) {
        let failed = loadFailedSinceStart
        if event == WEBKIT_LOAD_STARTED || event == WEBKIT_LOAD_FINISHED { loadFailedSinceStart = false }
        let uri = borrowGString(webkit_web_view_get_uri(webView))
        let allowed = allowedMainFrameURL
        if event == WEBKIT_LOAD_STARTED { allowedMainFrameURL = nil }
        if event == WEBKIT_LOAD_COMMITTED { committedURI = uri }
        guard let delegate = currentDelegate else { return }
        let url = uri.flatMap(URL.init(string:))
        switch event {
        case WEBKIT_LOAD_STARTED:
            // A load the page started still shows the URI of the document it leaves (see `allowedMainFrameURL`);
            // a load the host started (or a blank one) already shows its own.
            let pageStarted = allowed != nil && committedURI != nil && uri == committedURI
            delegate.didStartNavigation(to: pageStarted ? allowed : url)
        case WEBKIT_LOAD_COMMITTED: delegate.didCommitNavigation(to: url)
        case WEBKIT_LOAD_FINISHED where !failed: delegate.didFinishNavigation(to: url)
        default: break
        }
    }

    /// Returns true when the decision was taken (WebKit then does not apply its default).
    private func decidePolicy(_ decision: OpaquePointer, type: WebKitPolicyDecisionType) -> Bool {
        guard let delegate = currentDelegate else { return false }
        let policyDecision = UnsafeMutablePointer<WebKitPolicyDecision>(decision)
        switch type {
        case WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION, WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION:
            let navigationDecision = UnsafeMutablePointer<WebKitNavigationPolicyDecision>(decision)
            guard let action = webkit_navigation_policy_decision_get_navigation_action(navigationDecision),
                let request = webkit_navigation_action_get_request(action)
            else { return false }
            let frameName = borrowGString(webkit_navigation_action_get_frame_name(action))
            let navigation = NavigationAction(
                request: GTKWebView.engineRequest(request),
                kind: GTKWebView.kind(webkit_navigation_action_get_navigation_type(action)),
                isMainFrame: frameName == nil,
                opensNewWindow: type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION,
                isUserGesture: webkit_navigation_action_is_user_gesture(action) != 0,
                isMainFrameKnown: type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION)
            let decision = delegate.decidePolicy(for: navigation)
            if navigation.isMainFrame && !navigation.opensNewWindow {
                allowedMainFrameURL = decision == .allow ? navigation.request.url : nil
            }
            switch decision {
            case .allow: webkit_policy_decision_use(policyDecision)
            case .cancel: webkit_policy_decision_ignore(policyDecision)
            }
            return true
        case WEBKIT_POLICY_DECISION_TYPE_RESPONSE:
            let responseDecision = UnsafeMutablePointer<WebKitResponsePolicyDecision>(decision)
            guard let response = webkit_response_policy_decision_get_response(responseDecision) else { return false }
            let url = borrowGString(webkit_uri_response_get_uri(response)).flatMap(URL.init(string:))
            let navigation = NavigationResponse(
                url: url ?? URL(fileURLWithPath: "/"),
                statusCode: Int(webkit_uri_response_get_status_code(response)),
                mimeType: borrowGString(webkit_uri_response_get_mime_type(response)),
                isMainFrame: webkit_response_policy_decision_is_main_frame_main_resource(responseDecision) != 0,
                canShowMIMEType: webkit_response_policy_decision_is_mime_type_supported(responseDecision) != 0,
                headers: GTKWebView.headers(of: response),
                suggestedFilename: borrowGString(webkit_uri_response_get_suggested_filename(response)))
            switch delegate.decidePolicy(for: navigation) {
            case .allow: webkit_policy_decision_use(policyDecision)
            case .cancel: webkit_policy_decision_ignore(policyDecision)
            case .download:
                if let url, GTKWebContext.shared.serves(url) {
                    reportCustomSchemeDownload(navigation, url: url, decision: policyDecision)
                } else {
                    webkit_policy_decision_download(policyDecision)
                }
            }
            return true
        default:
            return false
        }
    }

    /// WebKitGTK 2.50 makes no download of a custom-scheme response: told to download one, it fails the load
    /// ("Frame load interrupted") and never emits `download-started`, so the UI delegate would hear nothing. No
    /// download is ever written by the engine anyway (``GTKDownloads`` reports each one and cancels it), so such a
    /// response is reported here from its head, as WebKit's own download would have been, and its load stopped.
    private func reportCustomSchemeDownload(
        _ response: NavigationResponse, url: URL, decision: UnsafeMutablePointer<WebKitPolicyDecision>
    ) {
        webkit_policy_decision_ignore(decision)
        let name = response.suggestedFilename.flatMap { $0.isEmpty ? nil : $0 } ?? GTKDownloads.fallbackName(for: url)
        reportDownload(EngineDownload(url: url, suggestedFilename: name, mimeType: response.mimeType))
    }

    static func engineRequest(_ request: UnsafeMutablePointer<WebKitURIRequest>) -> EngineRequest {
        let uri = borrowGString(webkit_uri_request_get_uri(request)) ?? ""
        let method = borrowGString(webkit_uri_request_get_http_method(request)) ?? "GET"
        return EngineRequest(url: URL(string: uri) ?? URL(fileURLWithPath: "/"), method: method)
    }

    private static func kind(_ type: WebKitNavigationType) -> NavigationAction.Kind {
        switch type {
        case WEBKIT_NAVIGATION_TYPE_LINK_CLICKED: .linkActivated
        case WEBKIT_NAVIGATION_TYPE_FORM_SUBMITTED: .formSubmitted
        case WEBKIT_NAVIGATION_TYPE_BACK_FORWARD: .backForward
        case WEBKIT_NAVIGATION_TYPE_RELOAD: .reload
        case WEBKIT_NAVIGATION_TYPE_FORM_RESUBMITTED: .formResubmitted
        default: .other
        }
    }
}
#endif
