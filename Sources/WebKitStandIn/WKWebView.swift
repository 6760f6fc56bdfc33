#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit

/// WKWebView on the stand-in: main-actor API, backed by an engine behind the port on that engine's own
/// executor. Calls go to the engine in order through a lane; engine events come back in order through another.
/// What WebKit answers synchronously (url, title, back/forward list, interaction state) is the engine's state
/// as of its last navigation event.
@MainActor open class WKWebView: NSObject {
    public let configuration: WKWebViewConfiguration
    public weak var navigationDelegate: (any WKNavigationDelegate)?
    public weak var uiDelegate: (any WKUIDelegate)?
    public private(set) var url: URL?
    public private(set) var title: String?
    public private(set) var isLoading = false
    public let backForwardList = WKBackForwardList()
    public var customUserAgent: String? {
        didSet {
            let value = customUserAgent
            backing?.perform { engine in engine.customUserAgent = value }
        }
    }
    /// The view's frame (UIView's); WebKit cannot snapshot a view whose bounds are empty.
    public var frame: CGRect
    let backing: StandInBacking?
    private var historyState: Data?
    private var schemeTasks: [ObjectIdentifier: StandInSchemeTask] = [:]

    public init(frame: CGRect, configuration: WKWebViewConfiguration) {
        requireMainThread("-[WKWebView initWithFrame:configuration:]")
        self.frame = frame
        self.configuration = configuration.copyForView()
        backing = WKStandIn.backend.map {
            StandInBacking(
                backend: $0, settings: configuration.portSettings,
                schemes: Array(configuration.schemeHandlers.keys), store: configuration.websiteDataStore.session.id)
        }
        super.init()
        backing?.view = self
        self.configuration.userContentController.attach(self)
        self.configuration.websiteDataStore.attach(self)
    }

    isolated deinit { backing?.close() }

    /// The schemes WebKit loads itself; registering a handler for one raises an exception.
    public class func handlesURLScheme(_ urlScheme: String) -> Bool {
        [
            "http", "https", "file", "about", "data", "blob", "javascript", "ws", "wss", "ftp", "applewebdata",
            "webkit-fake-url",
        ].contains(urlScheme.lowercased())
    }

    @discardableResult
    public func load(_ request: URLRequest) -> WKNavigation? {
        requireMainThread("-[WKWebView loadRequest:]")
        guard let engineRequest = Self.engineRequest(request, withBody: true) else { return nil }
        let navigation = WKNavigation()
        backing?.perform { [backing] engine in
            do throws(EngineError) {
                try engine.load(engineRequest)
            } catch {
                let message = error.description
                backing?.toView { view in view.reportLoadFailure(message) }
            }
        }
        return navigation
    }

    @discardableResult
    public func loadHTMLString(_ string: String, baseURL: URL?) -> WKNavigation? {
        requireMainThread("-[WKWebView loadHTMLString:baseURL:]")
        backing?.perform { engine in engine.loadHTML(string, baseURL: baseURL) }
        return WKNavigation()
    }

    @discardableResult
    public func loadFileURL(_ URL: URL, allowingReadAccessTo readAccessURL: URL) -> WKNavigation? {
        requireMainThread("-[WKWebView loadFileURL:allowingReadAccessToURL:]")
        backing?.perform { engine in engine.loadFile(URL, allowingReadAccessTo: readAccessURL) }
        return WKNavigation()
    }

    @discardableResult
    public func reload() -> WKNavigation? {
        requireMainThread("-[WKWebView reload]")
        backing?.perform { engine in engine.reload() }
        return WKNavigation()
    }

    public func stopLoading() {
        requireMainThread("-[WKWebView stopLoading]")
        backing?.perform { engine in engine.stopLoading() }
    }

    public func evaluateJavaScript(
        _ javaScriptString: String, completionHandler: (@MainActor @Sendable (Any?, (any Error)?) -> Void)? = nil
    ) {
        requireMainThread("-[WKWebView evaluateJavaScript:completionHandler:]")
        guard let backing else {
            completionHandler?(nil, Self.error(code: 4, "no engine behind the WebKit stand-in (WKStandIn.backend)"))
            return
        }
        guard let completionHandler else {
            backing.perform { engine in engine.evaluateJavaScriptIgnoringResult(javaScriptString) }
            return
        }
        let main = backing.main
        backing.perform(
            { engine in
                Task {
                    do {
                        let json = try await engine.evaluateJavaScript(javaScriptString)
                        main.post { completionHandler(StandInJSON.object(json), nil) }
                        // A script may have changed the title or history.
                        backing.refreshState()
                    } catch {
                        let message = "\(error)"
                        main.post { completionHandler(nil, Self.error(code: 4, message)) }
                    }
                }
            },
            orElse: { main.post { completionHandler(nil, Self.error(code: 1, "the web view's engine is gone")) } })
    }

    public func takeSnapshot(
        with snapshotConfiguration: WKSnapshotConfiguration?,
        completionHandler: @escaping @MainActor @Sendable (UIImage?, (any Error)?) -> Void
    ) {
        requireMainThread("-[WKWebView takeSnapshotWithConfiguration:completionHandler:]")
        // WebKit answers a snapshot of an empty rectangle (a view made at .zero and never laid out) with no
        // image and WKErrorUnknown.
        if frame.isEmpty {
            let main = backing?.main ?? EngineLane()
            main.post { completionHandler(nil, Self.error(code: 1, "the view's bounds are empty")) }
            return
        }
        guard let backing else {
            completionHandler(nil, Self.error(code: 1, "no engine behind the WebKit stand-in"))
            return
        }
        let main = backing.main
        backing.perform(
            { engine in
                Task {
                    do {
                        let png = try await engine.snapshotPNG()
                        main.post { completionHandler(UIImage(png: png), nil) }
                    } catch {
                        let message = "\(error)"
                        main.post { completionHandler(nil, Self.error(code: 1, message)) }
                    }
                }
            }, orElse: { main.post { completionHandler(nil, Self.error(code: 1, "the engine is gone")) } })
    }

    /// The engine's own history bytes, as of the last navigation event; setting restores them in the engine.
    @available(iOS 15.0, macOS 12.0, *)
    public var interactionState: Any? {
        get { historyState }
        set {
            guard let data = newValue as? Data else { return }
            historyState = data
            backing?.perform { engine in _ = engine.restoreHistory(data) }
            // WebKit's back/forward list reflects the restored state at once; here it follows one hop later.
            backing?.refreshState()
        }
    }

    // MARK: Engine events (main actor, in engine order)

    struct EngineState: Sendable {
        var url: URL?
        var title: String?
        var history: Data?
        var historyLength: Int?
    }

    func update(_ state: EngineState) {
        url = state.url
        title = state.title
        if let history = state.history { historyState = history }
        if let length = state.historyLength {
            // The port knows the length only, not which entries are behind or ahead: all count as behind, and
            // every item carries the current URL (a restored list has no document loaded yet: about:blank).
            let url = state.url ?? URL(string: "about:blank") ?? URL(fileURLWithPath: "/")
            let current = length > 0 ? WKBackForwardListItem(url: url, title: state.title) : nil
            backForwardList.currentItem = current
            backForwardList.backList = current.map { item in (0..<max(0, length - 1)).map { _ in item } } ?? []
            backForwardList.forwardList = []
        }
    }

    func navigationEvent(_ event: NavigationEvent, state: EngineState) {
        update(state)
        let navigation = WKNavigation()
        switch event {
        case .started:
            isLoading = true
            navigationDelegate?.webView(self, didStartProvisionalNavigation: navigation)
        case .committed: navigationDelegate?.webView(self, didCommit: navigation)
        case .finished:
            isLoading = false
            navigationDelegate?.webView(self, didFinish: navigation)
        case .failed(let message):
            isLoading = false
            navigationDelegate?.webView(self, didFail: navigation, withError: Self.error(code: -999, message))
        case .processTerminated:
            isLoading = false
            navigationDelegate?.webViewWebContentProcessDidTerminate(self)
        }
    }

    func reportLoadFailure(_ message: String) {
        navigationDelegate?.webView(
            self, didFailProvisionalNavigation: WKNavigation(), withError: Self.error(code: 1, message))
    }

    func decide(_ action: NavigationAction, answer: @escaping @Sendable (NavigationActionPolicy) -> Void) {
        let request = Self.urlRequest(action.request)
        let mainFrame = WKFrameInfo(
            isMainFrame: true, request: URLRequest(url: url ?? action.request.url),
            securityOrigin: WKSecurityOrigin(serialized: Self.origin(of: url)), webView: self)
        let target = WKFrameInfo(
            isMainFrame: action.isMainFrame, request: request,
            securityOrigin: WKSecurityOrigin(serialized: Self.origin(of: action.request.url)), webView: self)
        let wkAction = WKNavigationAction(
            request: request, navigationType: Self.navigationType(action.kind), sourceFrame: mainFrame,
            targetFrame: action.opensNewWindow ? nil : target, shouldPerformDownload: false)
        if action.opensNewWindow {
            // window.open and target=_blank: WebKit asks the UI delegate for a view; the stand-in opens none
            // (a view returned would not be wired to this engine's new window).
            _ = uiDelegate?.webView(
                self, createWebViewWith: configuration, for: wkAction, windowFeatures: WKWindowFeatures())
            answer(.cancel)
            return
        }
        guard let navigationDelegate else { return answer(.allow) }
        let check = CompletionCheck("-[WKNavigationDelegate webView:decidePolicyForNavigationAction:decisionHandler:]")
        navigationDelegate.webView(self, decidePolicyFor: wkAction) { policy in
            check.called()
            answer(policy == .cancel ? .cancel : .allow)
        }
    }

    func decide(_ response: NavigationResponse, answer: @escaping @Sendable (NavigationResponsePolicy) -> Void) {
        var headers: [String: String] = [:]
        for (name, value) in response.headers { headers[name] = value }
        if let mime = response.mimeType, response.header("Content-Type") == nil { headers["Content-Type"] = mime }
        let urlResponse: URLResponse =
            HTTPURLResponse(
                url: response.url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: headers)
            ?? URLResponse(
                url: response.url, mimeType: response.mimeType, expectedContentLength: -1, textEncodingName: nil)
        let wkResponse = WKNavigationResponse(
            isForMainFrame: response.isMainFrame, response: urlResponse, canShowMIMEType: response.canShowMIMEType)
        guard let navigationDelegate else { return answer(response.canShowMIMEType ? .allow : .download) }
        let check = CompletionCheck(
            "-[WKNavigationDelegate webView:decidePolicyForNavigationResponse:decisionHandler:]")
        navigationDelegate.webView(self, decidePolicyFor: wkResponse) { policy in
            check.called()
            switch policy {
            case .allow: answer(.allow)
            case .cancel: answer(.cancel)
            case .download: answer(.download)
            }
        }
    }

    func runDialog(_ dialog: ScriptDialog) async -> ScriptDialogAnswer {
        // The engine behind the port names the frame of some dialogs (WebKitGTK: the prompts of synchronous
        // bridge calls); WebKit names it for every dialog, so the others are the main frame's here.
        let frame =
            dialog.frame.map {
                WKFrameInfo(
                    isMainFrame: $0.isMainFrame, request: URLRequest(url: $0.url ?? URL(fileURLWithPath: "/")),
                    securityOrigin: WKSecurityOrigin(serialized: $0.securityOrigin), webView: self)
            }
            ?? WKFrameInfo(
                isMainFrame: true, request: URLRequest(url: url ?? URL(fileURLWithPath: "/")),
                securityOrigin: WKSecurityOrigin(serialized: Self.origin(of: url)), webView: self)
        guard let uiDelegate else { return ScriptDialogDefaults().answer(for: dialog) }
        switch dialog.kind {
        case .alert:
            await uiDelegate.webView(
                self, runJavaScriptAlertPanelWithMessage: dialog.message, initiatedByFrame: frame)
            return .dismissed
        case .confirm, .beforeUnload:
            return .confirmed(
                await uiDelegate.webView(
                    self, runJavaScriptConfirmPanelWithMessage: dialog.message, initiatedByFrame: frame))
        case .prompt(let defaultText):
            return .text(
                await uiDelegate.webView(
                    self, runJavaScriptTextInputPanelWithPrompt: dialog.message, defaultText: defaultText,
                    initiatedByFrame: frame))
        }
    }

    // MARK: Scheme tasks

    func startSchemeTask(_ task: any SchemeTask, scheme: String) {
        guard let handler = configuration.schemeHandlers[scheme], let backing else {
            backing?.perform { _ in task.fail(.notFound("no handler for \(scheme)")) }
            return
        }
        let wkTask = StandInSchemeTask(task: task, lane: backing.lane) { [weak self] ended in
            self?.schemeTasks.removeValue(forKey: ObjectIdentifier(ended))
        }
        schemeTasks[ObjectIdentifier(task)] = wkTask
        handler.webView(self, start: wkTask)
    }

    func stopSchemeTask(_ task: any SchemeTask, scheme: String) {
        guard let wkTask = schemeTasks.removeValue(forKey: ObjectIdentifier(task)) else { return }
        wkTask.markStopped()
        configuration.schemeHandlers[scheme]?.webView(self, stop: wkTask)
    }

    /// Scheme tasks the stand-in still tracks (started, not yet finished, failed or stopped).
    public var standInOpenSchemeTaskCount: Int { schemeTasks.count }

    // MARK: Helpers

    /// `request` as the port takes it, with or without its body; nil without a URL.
    static func engineRequest(_ request: URLRequest, withBody: Bool) -> EngineRequest? {
        guard let url = request.url else { return nil }
        return EngineRequest(
            url: url, method: request.httpMethod ?? "GET",
            headers: (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            body: withBody ? request.httpBody : nil)
    }

    /// Calls `functionBody` as an async function with `arguments` bound to its parameters, as WebKit does; only the
    /// main frame (`frame` nil) and the page world are backed. Arguments must be what the port passes (strings,
    /// numbers and dictionaries of them: WebKitGTK refuses booleans and arrays, and `NSNull` and dates are not
    /// backed): anything else fails the call, as WebKit fails a value it cannot pass, without running it.
    @available(iOS 14.0, macOS 11.0, *)
    public func callAsyncJavaScript(
        _ functionBody: String, arguments: [String: Any] = [:], in frame: WKFrameInfo? = nil,
        in contentWorld: WKContentWorld,
        completionHandler: (@MainActor @Sendable (Result<Any, any Error>) -> Void)? = nil
    ) {
        requireMainThread("-[WKWebView callAsyncJavaScript:arguments:inFrame:inContentWorld:completionHandler:]")
        var converted: [String: JavaScriptArgument] = [:]
        for (name, value) in arguments {
            guard let argument = Self.argument(value) else {
                completionHandler?(.failure(Self.error(code: 4, "argument '\(name)' is not a value WebKit can pass")))
                return
            }
            converted[name] = argument
        }
        guard frame == nil, contentWorld === WKContentWorld.page else {
            completionHandler?(.failure(Self.error(code: 4, "the stand-in backs the main frame's page world only")))
            return
        }
        guard let backing else {
            completionHandler?(
                .failure(Self.error(code: 4, "no engine behind the WebKit stand-in (WKStandIn.backend)")))
            return
        }
        let arguments = converted
        guard let completionHandler else {
            backing.perform { engine in engine.callAsyncJavaScriptIgnoringResult(functionBody, arguments: arguments) }
            return
        }
        let main = backing.main
        backing.perform(
            { engine in
                Task {
                    do {
                        let json = try await engine.callAsyncJavaScript(functionBody, arguments: arguments)
                        // WebKit hands an `undefined` result over as nil inside the `Any`.
                        let value: Any = StandInJSON.object(json) as Any
                        main.post { completionHandler(.success(value)) }
                    } catch {
                        let message = "\(error)"
                        main.post { completionHandler(.failure(Self.error(code: 4, message))) }
                    }
                }
            },
            orElse: { main.post { completionHandler(.failure(Self.error(code: 1, "the web view's engine is gone"))) } })
    }

    /// A value WebKit hands to a page function, as the port spells it; nil for what the stand-in does not back.
    nonisolated static func argument(_ value: Any) -> JavaScriptArgument? {
        switch value {
        case let text as String: return .string(text)
        case is Bool: return nil
        case let number as Int: return .number(Double(number))
        case let number as Double: return .number(number)
        case let members as [String: Any]:
            var converted: [String: JavaScriptArgument] = [:]
            for (name, member) in members {
                guard let argument = argument(member) else { return nil }
                converted[name] = argument
            }
            return .object(converted)
        default: return nil
        }
    }

    nonisolated static func error(code: Int, _ message: String) -> NSError {
        NSError(
            domain: WKErrorDomain, code: code,
            userInfo: [NSLocalizedDescriptionKey: message, WKJavaScriptExceptionMessageKey: message])
    }

    nonisolated static func urlRequest(_ request: EngineRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        // WebKit hands XHR and fetch bodies over as a stream, not as `httpBody`.
        if let body = request.body { urlRequest.httpBodyStream = StandInBodyStream(data: body) }
        return urlRequest
    }

    nonisolated static func origin(of url: URL?) -> String {
        guard let url, let scheme = url.scheme, let host = url.host, !host.isEmpty else { return "null" }
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    nonisolated static func navigationType(_ kind: NavigationAction.Kind) -> WKNavigationType {
        switch kind {
        case .linkActivated: .linkActivated
        case .formSubmitted: .formSubmitted
        case .backForward: .backForward
        case .reload: .reload
        case .formResubmitted: .formResubmitted
        case .other: .other
        }
    }
}

enum NavigationEvent: Sendable {
    case started, committed, finished
    case failed(String)
    case processTerminated
}

/// One WKURLSchemeTask. WebKit raises an Objective-C exception for a call after stop or out of order; so does
/// this, with WebKit's own messages (WebKit's `WKURLSchemeTask.mm`).
final class StandInSchemeTask: NSObject, WKURLSchemeTask, @unchecked Sendable {
    private struct State {
        var stopped = false
        var completed = false
        var responded = false
        var dataSent = false
        // WebKit lets a response be replaced until data flows; the port takes one, so it goes out late.
        var pendingResponse: SchemeResponse?
    }

    let request: URLRequest
    private let task: any SchemeTask
    private let lane: EngineLane
    private let state = Locked(State())
    private let onEnd: @MainActor @Sendable (StandInSchemeTask) -> Void

    init(task: any SchemeTask, lane: EngineLane, onEnd: @escaping @MainActor @Sendable (StandInSchemeTask) -> Void) {
        self.task = task
        self.lane = lane
        self.onEnd = onEnd
        request = WKWebView.urlRequest(task.request)
    }

    func markStopped() { state.withLock { $0.stopped = true } }

    /// Whether the request's body stream was read on the main thread. WebKit's stream fills as the page
    /// uploads (the bytes come from the network process), so such a read blocks the UI for a large upload.
    public var standInBodyReadOnMainThread: Bool {
        (request.httpBodyStream as? StandInBodyStream)?.readOnMainThread ?? false
    }

    func didReceive(_ response: URLResponse) {
        let head = Self.head(response)
        state.withLock { state in
            if state.stopped { raiseWebKitException("This task has already been stopped") }
            if state.completed {
                raiseWebKitException(
                    "[WKURLSchemeTask taskDidCompleteWithError:] has already been called for this task")
            }
            if state.dataSent {
                raiseWebKitException("[WKURLSchemeTask taskDidReceiveData:] has already been called for this task")
            }
            state.responded = true
            state.pendingResponse = head
        }
    }

    func didReceive(_ data: Data) {
        let head: SchemeResponse? = state.withLock { state in
            checkOpenWithResponse(&state)
            state.dataSent = true
            defer { state.pendingResponse = nil }
            return state.pendingResponse
        }
        let task = task
        lane.post {
            if let head { task.respond(head) }
            task.send(data)
        }
    }

    func didFinish() {
        let head: SchemeResponse? = state.withLock { state in
            checkOpenWithResponse(&state)
            state.completed = true
            defer { state.pendingResponse = nil }
            return state.pendingResponse
        }
        let task = task
        lane.post {
            if let head { task.respond(head) }
            task.finish()
        }
        end()
    }

    func didFailWithError(_ error: any Error) {
        state.withLock { state in
            if state.stopped { raiseWebKitException("This task has already been stopped") }
            if state.completed {
                raiseWebKitException(
                    "[WKURLSchemeTask taskDidCompleteWithError:] has already been called for this task")
            }
            state.completed = true
        }
        let task = task
        let message = (error as NSError).localizedDescription
        lane.post { task.fail(.failed(message)) }
        end()
    }

    private func checkOpenWithResponse(_ state: inout State) {
        if state.stopped { raiseWebKitException("This task has already been stopped") }
        if state.completed {
            raiseWebKitException(
                "[WKURLSchemeTask taskDidCompleteWithError:] has already been called for this task")
        }
        if !state.responded { raiseWebKitException("No response has been sent for this task") }
    }

    private func end() {
        let onEnd = onEnd
        Task { @MainActor [self] in onEnd(self) }
    }

    private static func head(_ response: URLResponse) -> SchemeResponse {
        if let http = response as? HTTPURLResponse {
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
            return SchemeResponse(
                statusCode: http.statusCode, headers: headers,
                expectedLength: http.expectedContentLength >= 0 ? Int(http.expectedContentLength) : nil)
        }
        var headers: [String: String] = [:]
        if let mime = response.mimeType { headers["Content-Type"] = mime }
        return SchemeResponse(
            statusCode: 200, headers: headers,
            expectedLength: response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil)
    }
}

/// A scheme task's request body, as WebKit hands it over (`httpBodyStream`). WebKit's stream fills as the page
/// uploads; reading it on the main thread blocks the UI until the last byte, which no exception reports. The
/// stand-in notes such reads (``StandInSchemeTask/standInBodyReadOnMainThread``) and says so on standard error.
final class StandInBodyStream: InputStream, @unchecked Sendable {
    private let mainThreadReads = Locked(0)

    override init(data: Data) { super.init(data: data) }

    var readOnMainThread: Bool { mainThreadReads.withLock { $0 } > 0 }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        if EngineThread.shared.isCurrent {
            let first = mainThreadReads.withLock { count in
                count += 1
                return count == 1
            }
            if first {
                FileHandle.standardError.write(
                    Data(
                        "WebKitStandIn: a scheme task's body stream is read on the main thread; WebKit's stream waits for the upload there, blocking the UI (read it on another thread)\n"
                            .utf8))
            }
        }
        return super.read(buffer, maxLength: len)
    }
}
#endif
