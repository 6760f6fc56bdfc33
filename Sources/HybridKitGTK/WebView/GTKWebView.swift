#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit
import Logging

typealias ReplyMessageCallback = @GTKActor (UnsafeMutablePointer<JSCValue>?, OpaquePointer?) -> Void
typealias MessageCallback = @GTKActor (OpaquePointer?) -> Void

/// The WebKitGTK implementation of the port: one `WebKitWebView` in its own top-level window.
///
/// All state lives on ``GTKActor``, which is the port's own actor (`EngineActor`): the compiler checks every call.
@GTKActor
public final class GTKWebView: WebEngine {
    public struct Configuration: Sendable {
        public var width: Int32
        public var height: Int32
        /// Show the window (a hidden view still loads and runs scripts, but is not painted).
        public var visible: Bool
        public var mediaPlaybackRequiresUserGesture: Bool
        public var developerExtras: Bool
        /// Engine-free settings fixed at creation (autoplay, inline media, `window.open`, user agent); where set
        /// they win over the fields above.
        public var settings: WebViewSettings

        public init(
            width: Int32 = 1024, height: Int32 = 768, visible: Bool = true,
            mediaPlaybackRequiresUserGesture: Bool = true, developerExtras: Bool = false,
            settings: WebViewSettings = WebViewSettings()
        ) {
            self.width = width
            self.height = height
            self.visible = visible
            self.mediaPlaybackRequiresUserGesture = mediaPlaybackRequiresUserGesture
            self.developerExtras = developerExtras
            self.settings = settings
        }
    }

    /// Live instances, for leak tests: a closed, released view must not stay counted.
    public private(set) static var liveCount = 0

    let webView: UnsafeMutablePointer<WebKitWebView>
    let window: UnsafeMutablePointer<GtkWidget>
    private let contentManager: UnsafeMutablePointer<WebKitUserContentManager>
    private var messageHandlers: [String: (handler: any ScriptMessageHandler, signal: gulong, replies: Bool)] = [:]
    private var schemeHandlers: [String: any SchemeHandler] = [:]
    /// Scripts added, in order, each with its WebKit object (one reference held), so one can be removed.
    private var userScripts: [(script: UserScript, handle: OpaquePointer)] = []
    private var schemeTasks: [ObjectIdentifier: GTKSchemeTask] = [:]
    private weak var delegate: (any NavigationDelegate)?
    private var closed = false
    var isClosed: Bool { closed }
    var viewSignals: [gulong] = []
    /// Set by `load-failed` until the next load starts: WebKitGTK follows every failure with `load-changed`
    /// FINISHED (carrying the URI of whatever load replaced it), which the port must not report as a finish —
    /// WKWebView reports a failed navigation as failed only.
    var loadFailedSinceStart = false
    /// The URL of the last main-frame navigation the delegate allowed, until its load starts, and the URI the
    /// view showed at the last commit. WebKitGTK names a load the page started (a link, `location`, a form) with
    /// the document it leaves when it emits STARTED (the view's URI changes only at the commit), where WKWebView
    /// names the provisional URL: a STARTED whose URI is still the committed one takes the allowed URL instead.
    var allowedMainFrameURL: URL?
    var committedURI: String?
    let ui = GTKUIState()
    private lazy var cookies = GTKCookieStore(
        manager: webkit_web_context_get_cookie_manager(GTKWebContext.shared.context))

    /// Creates a web view. ``GTKRuntime/start(_:)`` must have succeeded.
    public init(configuration: Configuration = Configuration()) {
        guard let manager = webkit_user_content_manager_new() else { fatalError("out of memory") }
        contentManager = manager
        let settings = webkit_settings_new()
        webkit_settings_set_enable_developer_extras(settings, configuration.developerExtras ? 1 : 0)
        webkit_settings_set_media_playback_requires_user_gesture(
            settings, configuration.mediaPlaybackRequiresUserGesture ? 1 : 0)
        webkit_settings_set_javascript_can_open_windows_automatically(settings, 0)
        if let settings { GTKWebView.applyCreationSettings(configuration.settings, to: settings) }
        webView = hk_web_view_new(GTKWebContext.shared.context, contentManager, settings)
        g_object_unref(settings)
        // The view holds its own reference to the manager; ours is dropped at close.
        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        gtk_window_set_default_size(hk_window(window), configuration.width, configuration.height)
        gtk_container_add(hk_container(window), hk_widget(webView))
        if configuration.visible { gtk_widget_show_all(window) } else { gtk_widget_show(hk_widget(webView)) }
        GTKWebContext.shared.attach(self, engineView: webView)
        connectNavigationSignals()
        connectUserMessages()
        connectUISignals()
        GTKWebView.liveCount += 1
    }

    isolated deinit {
        tearDown()
        GTKWebView.liveCount -= 1
    }

    /// Tears the view down: stops loads, fails scheme tasks, disconnects handlers, destroys the window.
    /// Idempotent; also done at deinit.
    public func close() { tearDown() }

    private func tearDown() {
        guard !closed else { return }
        closed = true
        ui.close()
        for (_, task) in schemeTasks { task.cancel() }
        schemeTasks.removeAll()
        for (name, entry) in messageHandlers {
            g_signal_handler_disconnect(UnsafeMutableRawPointer(contentManager), entry.signal)
            webkit_user_content_manager_unregister_script_message_handler(contentManager, name)
        }
        messageHandlers.removeAll()
        schemeHandlers.removeAll()
        for signal in viewSignals { g_signal_handler_disconnect(UnsafeMutableRawPointer(webView), signal) }
        viewSignals.removeAll()
        GTKWebContext.shared.detach(engineView: UnsafeMutableRawPointer(webView))
        gtk_widget_destroy(window)
        releaseUserScripts()
        g_object_unref(UnsafeMutableRawPointer(contentManager))
    }

    /// Whether the window is shown.
    public var isVisible: Bool {
        get { gtk_widget_get_visible(window) != 0 }
        set { newValue ? gtk_widget_show_all(window) : gtk_widget_hide(window) }
    }

    // MARK: Loading

    public func load(_ request: EngineRequest) throws(EngineError) {
        // WebKitGTK's public API loads GET requests only: sending this one would silently drop its method
        // and body, the very bug this project exists to prevent.
        guard request.method == "GET", request.body == nil else {
            throw .unsupported("WebKitGTK can only load GET requests without a body, not \(request.method)")
        }
        guard !closed else { return }
        let uriRequest = webkit_uri_request_new(request.url.absoluteString)
        if let headers = webkit_uri_request_get_http_headers(uriRequest) {
            for header in request.headers { soup_message_headers_replace(headers, header.name, header.value) }
        }
        webkit_web_view_load_request(webView, uriRequest)
        g_object_unref(uriRequest)
    }

    public func loadHTML(_ html: String, baseURL: URL?) {
        guard !closed else { return }
        webkit_web_view_load_html(webView, html, baseURL?.absoluteString)
    }

    /// `webkit_web_view_load_bytes` with `request.url` as the base URI: the document gets that URL and its origin
    /// (`location`, `document.URL`, `self.origin`, cookies and same-origin requests, as a network load: checked in
    /// `NetworkPageGTKTests`). It takes a MIME type and a charset only, so a status other than 200, or a header
    /// WebKit would apply from the response, is refused rather than lost.
    public func loadSimulatedRequest(
        _ request: EngineRequest, response: SchemeResponse, responseData: Data
    ) throws(EngineError) {
        guard response.statusCode == 200 else {
            throw .unsupported("WebKitGTK cannot show a simulated response with status \(response.statusCode)")
        }
        let carried = SimulatedLoadHeaders.documentLayer.union(SimulatedLoadHeaders.networkLayer)
        if let header = SimulatedLoadHeaders.first(in: response.headers, of: carried) {
            throw .unsupported("WebKitGTK's load_bytes cannot carry the response header '\(header)'")
        }
        let type = response.headers.first { $0.key.caseInsensitiveCompare("Content-Type") == .orderedSame }?.value
        let parts = (type ?? "text/html").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let mime = parts.first.map { $0.lowercased() } ?? "text/html"
        let charset = parts.dropFirst().first { $0.lowercased().hasPrefix("charset=") }
            .map { String($0.dropFirst("charset=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        guard !closed else { throw .viewClosed }
        let bytes = responseData.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        // No charset in the header: "", not NULL. NULL makes load_bytes assume UTF-8 and ignore the document's
        // own <meta charset>, where the engine's load would read it (a windows-1251 page shown as U+FFFDs);
        // an empty encoding leaves the decoder to the BOM, the <meta> and the default, as for a network load.
        webkit_web_view_load_bytes(webView, bytes, mime, charset ?? "", request.url.absoluteString)
        g_bytes_unref(bytes)
    }

    /// A view that has loaded nothing has no web process yet: WebKitGTK launches it at the first load, and only
    /// then asks for the main document, so the launch and the document's round trip follow each other. An empty
    /// HTML string (`about:blank`) launches it now and, loaded as a string, leaves no history entry (checked in
    /// `NetworkPageGTKTests`).
    public func startWebProcess() -> Bool {
        guard !closed, webkit_web_view_get_uri(webView) == nil else { return false }
        webkit_web_view_load_html(webView, "", nil)
        return true
    }

    public func loadFile(_ fileURL: URL, allowingReadAccessTo directory: URL) {
        guard !closed else { return }
        // WebKitGTK grants file pages access to file URLs through a setting, not per directory.
        webkit_settings_set_allow_file_access_from_file_urls(webkit_web_view_get_settings(webView), 1)
        webkit_web_view_load_uri(webView, fileURL.absoluteString)
    }

    public func reload() { if !closed { webkit_web_view_reload(webView) } }
    public func stopLoading() { if !closed { webkit_web_view_stop_loading(webView) } }

    public var url: URL? {
        closed ? nil : borrowGString(webkit_web_view_get_uri(webView)).flatMap(URL.init(string:))
    }

    public var title: String? {
        closed ? nil : borrowGString(webkit_web_view_get_title(webView))
    }

    // MARK: Scripts

    public func evaluateJavaScript(_ script: String) async throws(EngineError) -> String? {
        guard !closed else { throw .viewClosed }
        let view = webView
        return try await gioAsync(
            start: { callback, data in
                webkit_web_view_evaluate_javascript(view, script, -1, nil, nil, nil, callback, data)
            },
            finish: { source, result in
                var error: UnsafeMutablePointer<GError>?
                guard let value = webkit_web_view_evaluate_javascript_finish(view, result, &error) else {
                    return .failure(.javaScript(takeGError(error)))
                }
                defer { g_object_unref(UnsafeMutableRawPointer(value)) }
                if jsc_value_is_undefined(value) != 0 { return .success(nil) }
                return .success(takeGString(jsc_value_to_json(value, 0)))
            })
    }

    public func evaluateJavaScriptIgnoringResult(_ script: String) {
        guard !closed else { return }
        webkit_web_view_evaluate_javascript(webView, script, -1, nil, nil, nil, nil, nil)
    }

    public func addUserScript(_ script: UserScript) {
        let userScript = webkit_user_script_new(
            script.source,
            script.allFrames ? WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES : WEBKIT_USER_CONTENT_INJECT_TOP_FRAME,
            script.injectionTime == .documentStart
                ? WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START : WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_END,
            nil, nil)
        guard let userScript else { return }
        webkit_user_content_manager_add_script(contentManager, userScript)
        userScripts.append((script, userScript))
    }

    public func removeUserScript(_ script: UserScript) {
        guard let index = userScripts.firstIndex(where: { $0.script == script }) else { return }
        let handle = userScripts.remove(at: index).handle
        webkit_user_content_manager_remove_script(contentManager, handle)
        webkit_user_script_unref(handle)
    }

    public func removeAllUserScripts() {
        webkit_user_content_manager_remove_all_scripts(contentManager)
        releaseUserScripts()
    }

    private func releaseUserScripts() {
        for entry in userScripts { webkit_user_script_unref(entry.handle) }
        userScripts.removeAll()
    }

    public nonisolated var supportsMessageReplies: Bool { true }

    /// True when the web processes load HybridKit's frame-stamping extension: the bridge runtime then posts
    /// through it, and each message arrives with the real URI of the frame that sent it.
    public var verifiesMessageFrames: Bool { GTKWebContext.shared.stampsFrames }

    /// A post relayed by the frame-stamping extension, delivered like a script message but with its frame.
    func receiveFramePost(_ message: UnsafeMutablePointer<WebKitUserMessage>) -> Bool {
        guard let post = GTKFrameMessage.post(from: message) else { return false }
        guard let entry = messageHandlers[post.handlerName] else { return true }
        let reply = entry.replies ? GTKFrameMessageReply(message: message) : nil
        entry.handler.didReceive(
            ScriptMessage(name: post.handlerName, body: .string(post.text), frame: post.frame), reply: reply)
        return true
    }

    public func addScriptMessageHandler(_ handler: any ScriptMessageHandler, name: String, replies: Bool) {
        removeScriptMessageHandler(name: name)
        let manager = contentManager
        let signal: gulong
        if replies {
            webkit_user_content_manager_register_script_message_handler_with_reply(manager, name, nil)
            let callback:
                @convention(c) (gpointer?, UnsafeMutablePointer<JSCValue>?, OpaquePointer?, gpointer?) -> gboolean =
                    {
                        _, value, reply, data in
                        guard let deliver = SignalBox<ReplyMessageCallback>.from(data)
                        else { return 0 }
                        GTKActor.assumeIsolated { deliver(value, reply) }
                        return 1
                    }
            signal = connectSignal(
                UnsafeMutableRawPointer(contentManager), "script-message-with-reply-received::\(name)",
                handler: unsafeBitCast(callback, to: GCallback.self), as: ReplyMessageCallback.self,
                callback: { [weak handler] value, reply in
                    guard let handler, let value, let reply else { return }
                    let message = ScriptMessage(name: name, body: GTKWebView.messageBody(value))
                    handler.didReceive(message, reply: GTKScriptMessageReply(reply: reply, value: value))
                })
        } else {
            webkit_user_content_manager_register_script_message_handler(manager, name)
            let callback: @convention(c) (OpaquePointer?, OpaquePointer?, gpointer?) -> Void = { _, result, data in
                guard let deliver = SignalBox<MessageCallback>.from(data) else { return }
                GTKActor.assumeIsolated { deliver(result) }
            }
            signal = connectSignal(
                UnsafeMutableRawPointer(contentManager), "script-message-received::\(name)",
                handler: unsafeBitCast(callback, to: GCallback.self), as: MessageCallback.self,
                callback: { [weak handler] result in
                    guard let handler, let result, let value = webkit_javascript_result_get_js_value(result)
                    else { return }
                    handler.didReceive(ScriptMessage(name: name, body: GTKWebView.messageBody(value)), reply: nil)
                })
        }
        messageHandlers[name] = (handler, signal, replies)
    }

    public func removeScriptMessageHandler(name: String) {
        guard let entry = messageHandlers.removeValue(forKey: name) else { return }
        g_signal_handler_disconnect(UnsafeMutableRawPointer(contentManager), entry.signal)
        webkit_user_content_manager_unregister_script_message_handler(contentManager, name)
    }

    /// Strings pass through as they are (the bridge runtime posts strings); anything else as its JSON.
    private static func messageBody(_ value: UnsafeMutablePointer<JSCValue>) -> ScriptMessage.Body {
        if jsc_value_is_string(value) != 0 {
            return .string(takeGString(jsc_value_to_string(value)) ?? "")
        }
        return .other(json: takeGString(jsc_value_to_json(value, 0)))
    }

    // MARK: Networking

    public func setSchemeHandler(_ handler: any SchemeHandler, forScheme scheme: String) throws(EngineError) {
        try GTKWebContext.shared.registerScheme(scheme)
        schemeHandlers[scheme.lowercased()] = handler
    }

    /// Per view, as every HybridKit logger: a logger takes its handler when it is made.
    private let schemeLogger = Logger(label: "hybrid.gtk")

    func handleSchemeRequest(_ request: UnsafeMutablePointer<WebKitURISchemeRequest>) {
        let scheme = borrowGString(webkit_uri_scheme_request_get_scheme(request))?.lowercased() ?? ""
        guard let handler = schemeHandlers[scheme] else {
            GTKSchemeTask.finish(request, error: .notFound("no handler for scheme '\(scheme)'"))
            return
        }
        let limit = handler.maximumBodySize
        let task = GTKSchemeTask(request: request, mayReadBody: { handler.mayReadBody(of: $0) }, bodyLimit: limit) {
            [weak self] task in
            self?.schemeTasks[ObjectIdentifier(task)] = nil
        }
        if task.bodyOverLimit {
            return task.fail(RequestBodyLimit.refuse(task.request, limit: limit, logger: schemeLogger))
        }
        schemeTasks[ObjectIdentifier(task)] = task
        task.onStop = { [weak handler] task in handler?.stop(task) }
        handler.start(task)
    }

    public var cookieStore: any EngineCookieStore { cookies }

    // MARK: Navigation and lifecycle

    public var navigationDelegate: (any NavigationDelegate)? {
        get { delegate }
        set { delegate = newValue }
    }

    var currentDelegate: (any NavigationDelegate)? { delegate }

    /// The user agent in effect (the engine's own until set): the value native requests made for this page
    /// should send too (`ProxiedRequest/settingUserAgent(_:)`).
    public var customUserAgent: String? {
        get { borrowGString(webkit_settings_get_user_agent(webkit_web_view_get_settings(webView))) }
        set { webkit_settings_set_user_agent(webkit_web_view_get_settings(webView), newValue) }
    }

    public func terminateWebProcess() {
        if !closed { webkit_web_view_terminate_web_process(webView) }
    }

    public func snapshotPNG() async throws(EngineError) -> Data {
        guard !closed else { throw .viewClosed }
        let view = webView
        return try await gioAsync(
            start: { callback, data in
                webkit_web_view_get_snapshot(
                    view, WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE, nil, callback, data)
            },
            finish: { _, result in
                var error: UnsafeMutablePointer<GError>?
                guard let surface = webkit_web_view_get_snapshot_finish(view, result, &error) else {
                    return .failure(.engine("snapshot failed: \(takeGError(error))"))
                }
                defer { cairo_surface_destroy(surface) }
                return PNGWriter.encode(surface).map { .success($0) } ?? .failure(.engine("PNG encoding failed"))
            })
    }
}
#endif
