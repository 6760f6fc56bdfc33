#if canImport(WebKit)
    import Foundation
    import HybridKit
    import WebKit

    /// The WKWebView implementation of the port, kept thin: every requirement maps onto one WebKit call.
    ///
    /// Not compiled or tested on Linux (WebKit is Apple-only); the WebKitGTK adapter is the tested reference.
    /// Differences from WebKitGTK that callers see:
    /// - scheme handlers must exist before the view is created: pass them to `init` (``setSchemeHandler(_:forScheme:)``
    ///   can then only replace the handler of a scheme registered there);
    /// - ``terminateWebProcess()`` does nothing: WKWebView has no public API for it.
    @MainActor
    public final class WKEngine: NSObject, WebEngine {
        public let webView: WKWebView
        private var schemeBridges: [String: SchemeHandlerBridge] = [:]
        private var messageProxies: [String: MessageProxy] = [:]
        private var addedScripts: [UserScript] = []
        private weak var delegate: (any NavigationDelegate)?
        weak var uiDelegateStorage: (any EngineUIDelegate)?
        private lazy var cookies = WKCookieStore(store: webView.configuration.websiteDataStore.httpCookieStore)

        public init(
            configuration: WKWebViewConfiguration = WKWebViewConfiguration(),
            schemeHandlers: [String: any SchemeHandler] = [:]
        ) {
            for (scheme, handler) in schemeHandlers {
                let bridge = SchemeHandlerBridge(handler: handler)
                configuration.setURLSchemeHandler(bridge, forURLScheme: scheme)
                schemeBridges[scheme.lowercased()] = bridge
            }
            webView = WKWebView(frame: .zero, configuration: configuration)
            super.init()
            webView.navigationDelegate = self
        }

        public nonisolated var executor: UnownedSerialExecutor { MainActor.sharedUnownedExecutor }

        public nonisolated func load(_ request: EngineRequest) throws(EngineError) {
            MainActor.assumeIsolated {
                var urlRequest = URLRequest(url: request.url)
                urlRequest.httpMethod = request.method
                urlRequest.httpBody = request.body
                for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
                webView.load(urlRequest)
            }
        }

        public nonisolated func loadHTML(_ html: String, baseURL: URL?) {
            MainActor.assumeIsolated { _ = webView.loadHTMLString(html, baseURL: baseURL) }
        }

        public nonisolated func loadFile(_ fileURL: URL, allowingReadAccessTo directory: URL) {
            MainActor.assumeIsolated { _ = webView.loadFileURL(fileURL, allowingReadAccessTo: directory) }
        }

        public nonisolated func reload() { MainActor.assumeIsolated { _ = webView.reload() } }
        public nonisolated func stopLoading() { MainActor.assumeIsolated { webView.stopLoading() } }
        public nonisolated var url: URL? { MainActor.assumeIsolated { webView.url } }
        public nonisolated var title: String? { MainActor.assumeIsolated { webView.title } }

        public nonisolated func evaluateJavaScript(_ script: String) async throws(EngineError) -> String? {
            let result: Result<String?, EngineError> = await withCheckedContinuation { continuation in
                MainActor.assumeIsolated {
                    webView.evaluateJavaScript(script) { value, error in
                        if let error {
                            continuation.resume(returning: .failure(.javaScript(error.localizedDescription)))
                        } else {
                            continuation.resume(returning: .success(JSONText.encode(value)))
                        }
                    }
                }
            }
            return try result.get()
        }

        public nonisolated func evaluateJavaScriptIgnoringResult(_ script: String) {
            MainActor.assumeIsolated { webView.evaluateJavaScript(script, completionHandler: nil) }
        }

        public nonisolated func addUserScript(_ script: UserScript) {
            MainActor.assumeIsolated {
                webView.configuration.userContentController.addUserScript(
                    WKUserScript(
                        source: script.source,
                        injectionTime: script.injectionTime == .documentStart ? .atDocumentStart : .atDocumentEnd,
                        forMainFrameOnly: !script.allFrames))
                addedScripts.append(script)
            }
        }

        public nonisolated func removeAllUserScripts() {
            MainActor.assumeIsolated {
                webView.configuration.userContentController.removeAllUserScripts()
                addedScripts.removeAll()
            }
        }

        /// WKUserContentController removes scripts only all at once: remove all, add back the others in order.
        public nonisolated func removeUserScript(_ script: UserScript) {
            MainActor.assumeIsolated {
                guard let index = addedScripts.firstIndex(of: script) else { return }
                var kept = addedScripts
                kept.remove(at: index)
                removeAllUserScripts()
                for script in kept { addUserScript(script) }
            }
        }

        public nonisolated var supportsMessageReplies: Bool { true }
        public nonisolated var verifiesMessageFrames: Bool { true }

        public nonisolated func addScriptMessageHandler(
            _ handler: any ScriptMessageHandler, name: String, replies: Bool
        ) {
            MainActor.assumeIsolated {
                removeScriptMessageHandler(name: name)
                let proxy = MessageProxy(handler: handler)
                let controller = webView.configuration.userContentController
                if replies {
                    controller.addScriptMessageHandler(proxy, contentWorld: .page, name: name)
                } else {
                    controller.add(proxy, name: name)
                }
                messageProxies[name] = proxy
            }
        }

        public nonisolated func removeScriptMessageHandler(name: String) {
            MainActor.assumeIsolated {
                guard messageProxies.removeValue(forKey: name) != nil else { return }
                webView.configuration.userContentController.removeScriptMessageHandler(
                    forName: name, contentWorld: .page)
            }
        }

        public nonisolated func setSchemeHandler(_ handler: any SchemeHandler, forScheme scheme: String)
            throws(EngineError)
        {
            let replaced = MainActor.assumeIsolated { () -> Bool in
                guard let bridge = schemeBridges[scheme.lowercased()] else { return false }
                bridge.handler = handler
                return true
            }
            if !replaced {
                throw .engine(
                    "WKWebView takes scheme handlers before the view exists: pass '\(scheme)' to WKEngine.init")
            }
        }

        public nonisolated var cookieStore: any EngineCookieStore { MainActor.assumeIsolated { cookies } }

        public nonisolated var navigationDelegate: (any NavigationDelegate)? {
            get { MainActor.assumeIsolated { delegate } }
            set { MainActor.assumeIsolated { delegate = newValue } }
        }

        public nonisolated var customUserAgent: String? {
            get { MainActor.assumeIsolated { webView.customUserAgent } }
            set { MainActor.assumeIsolated { webView.customUserAgent = newValue } }
        }

        public nonisolated func terminateWebProcess() {}

        public nonisolated func snapshotPNG() async throws(EngineError) -> Data {
            let result: Result<Data, EngineError> = await withCheckedContinuation { continuation in
                MainActor.assumeIsolated {
                    webView.takeSnapshot(with: nil) { image, error in
                        guard let image, let png = PlatformImage.png(image) else {
                            continuation.resume(
                                returning: .failure(
                                    .engine("snapshot failed: \(error?.localizedDescription ?? "no image")")))
                            return
                        }
                        continuation.resume(returning: .success(png))
                    }
                }
            }
            return try result.get()
        }
    }

    extension WKEngine: WKNavigationDelegate {
        public func webView(
            _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
            decisionHandler: @escaping @MainActor (WKNavigationActionPolicy) -> Void
        ) {
            let request = navigationAction.request
            let action = NavigationAction(
                request: EngineRequest(
                    url: request.url ?? URL(fileURLWithPath: "/"), method: request.httpMethod ?? "GET",
                    headers: (request.allHTTPHeaderFields ?? [:]).map { ($0.key, $0.value) }, body: request.httpBody),
                kind: Self.kind(navigationAction.navigationType),
                isMainFrame: navigationAction.targetFrame?.isMainFrame ?? true,
                opensNewWindow: navigationAction.targetFrame == nil)
            let allowed = delegate?.decidePolicy(for: action) != .cancel
            // `<a download>`: the action itself says so; the download then reaches `didBecome download`.
            decisionHandler(allowed ? (navigationAction.shouldPerformDownload ? .download : .allow) : .cancel)
        }

        public func webView(
            _ webView: WKWebView, decidePolicyFor navigationResponse: WKNavigationResponse,
            decisionHandler: @escaping @MainActor (WKNavigationResponsePolicy) -> Void
        ) {
            let response = NavigationResponse(
                url: navigationResponse.response.url ?? URL(fileURLWithPath: "/"),
                statusCode: (navigationResponse.response as? HTTPURLResponse)?.statusCode ?? 200,
                mimeType: navigationResponse.response.mimeType, isMainFrame: navigationResponse.isForMainFrame,
                canShowMIMEType: navigationResponse.canShowMIMEType,
                headers: ((navigationResponse.response as? HTTPURLResponse)?.allHeaderFields ?? [:]).map {
                    ("\($0.key)", "\($0.value)")
                },
                suggestedFilename: navigationResponse.response.suggestedFilename)
            switch delegate?.decidePolicy(for: response) ?? .allow {
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
            delegate?.didStartNavigation(to: webView.url)
        }

        public func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!) {
            delegate?.didCommitNavigation(to: webView.url)
        }

        public func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
            delegate?.didFinishNavigation(to: webView.url)
        }

        public func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error) {
            delegate?.didFailNavigation(to: webView.url, error: error.localizedDescription)
        }

        public func webView(
            _ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error
        ) {
            delegate?.didFailNavigation(to: webView.url, error: error.localizedDescription)
        }

        public func webViewWebContentProcessDidTerminate(_ webView: WKWebView) {
            delegate?.webProcessDidTerminate(reason: .crashed)
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

    /// Receives script messages for one handler name. WKUserContentController retains it; it holds the core's
    /// handler, which itself holds its bridge weakly, so no cycle keeps a page alive.
    @MainActor
    final class MessageProxy: NSObject, WKScriptMessageHandler, WKScriptMessageHandlerWithReply {
        let handler: any ScriptMessageHandler

        init(handler: any ScriptMessageHandler) { self.handler = handler }

        func userContentController(_ controller: WKUserContentController, didReceive message: WKScriptMessage) {
            handler.didReceive(
                ScriptMessage(name: message.name, body: Self.body(message.body), frame: Self.frame(message)), reply: nil
            )
        }

        func userContentController(
            _ controller: WKUserContentController, didReceive message: WKScriptMessage,
            replyHandler: @escaping @MainActor (Any?, String?) -> Void
        ) {
            handler.didReceive(
                ScriptMessage(name: message.name, body: Self.body(message.body), frame: Self.frame(message)),
                reply: Reply(replyHandler))
        }

        /// WebKit names the sending frame itself; its security origin is what the bridge checks. An opaque
        /// origin (sandboxed iframe, `data:` frame) has an empty `protocol`: it is reported as `null`, never
        /// built into a URL (an empty `URLComponents.scheme` traps).
        private static func frame(_ message: WKScriptMessage) -> FrameInfo {
            let origin = message.frameInfo.securityOrigin
            var serialized = ""
            if !origin.protocol.isEmpty {
                serialized = "\(origin.protocol)://\(origin.host)"
                if origin.port != 0 { serialized += ":\(origin.port)" }
            }
            return FrameInfo(
                url: message.frameInfo.request.url, securityOrigin: serialized,
                isMainFrame: message.frameInfo.isMainFrame)
        }

        private static func body(_ body: Any) -> ScriptMessage.Body {
            if let text = body as? String { return .string(text) }
            return .other(json: JSONText.encode(body))
        }

        final class Reply: ScriptMessageReply, @unchecked Sendable {
            // Called on the main actor only (the port's contract); settles once.
            private var replyHandler: (@MainActor (Any?, String?) -> Void)?
            init(_ replyHandler: @escaping @MainActor (Any?, String?) -> Void) { self.replyHandler = replyHandler }

            func resolve(json: String) {
                let value = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
                settle(value, nil)
            }

            func reject(message: String) { settle(nil, message) }

            private func settle(_ value: Any?, _ error: String?) {
                MainActor.assumeIsolated {
                    let handler = replyHandler
                    replyHandler = nil
                    handler?(value, error)
                }
            }
        }
    }

    /// WKURLSchemeHandler → the port's SchemeHandler.
    @MainActor
    final class SchemeHandlerBridge: NSObject, WKURLSchemeHandler {
        var handler: any SchemeHandler
        private var tasks: [ObjectIdentifier: WKSchemeTaskAdapter] = [:]

        init(handler: any SchemeHandler) { self.handler = handler }

        func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask) {
            let task = WKSchemeTaskAdapter(task: urlSchemeTask)
            tasks[ObjectIdentifier(urlSchemeTask)] = task
            handler.start(task)
        }

        func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask) {
            guard let task = tasks.removeValue(forKey: ObjectIdentifier(urlSchemeTask)) else { return }
            task.stopped = true
            handler.stop(task)
        }
    }

    /// One WKURLSchemeTask. Calling a WKURLSchemeTask after it was stopped raises an exception, so every
    /// call checks `stopped` first.
    final class WKSchemeTaskAdapter: SchemeTask, @unchecked Sendable {
        // Used on the main actor only (the port's contract).
        private let task: any WKURLSchemeTask
        var stopped = false
        let request: EngineRequest

        @MainActor init(task: any WKURLSchemeTask) {
            self.task = task
            let urlRequest = task.request
            request = EngineRequest(
                url: urlRequest.url ?? URL(fileURLWithPath: "/"), method: urlRequest.httpMethod ?? "GET",
                headers: (urlRequest.allHTTPHeaderFields ?? [:]).map { ($0.key, $0.value) }, body: urlRequest.httpBody)
        }

        func respond(_ response: SchemeResponse) {
            MainActor.assumeIsolated {
                guard !stopped,
                    let http = HTTPURLResponse(
                        url: request.url, statusCode: response.statusCode, httpVersion: "HTTP/1.1",
                        headerFields: response.headers)
                else { return }
                task.didReceive(http)
            }
        }

        func send(_ data: Data) { MainActor.assumeIsolated { if !stopped { task.didReceive(data) } } }

        func finish() {
            MainActor.assumeIsolated {
                guard !stopped else { return }
                stopped = true
                task.didFinish()
            }
        }

        func fail(_ error: SchemeTaskError) {
            MainActor.assumeIsolated {
                guard !stopped else { return }
                stopped = true
                task.didFailWithError(
                    NSError(
                        domain: "HybridKit.SchemeTask", code: 1,
                        userInfo: [NSLocalizedDescriptionKey: error.description]))
            }
        }
    }

    /// WKHTTPCookieStore → the port's cookie store.
    @MainActor
    final class WKCookieStore: NSObject, EngineCookieStore, WKHTTPCookieStoreObserver {
        private let store: WKHTTPCookieStore
        private var observers: [@Sendable () -> Void] = []

        init(store: WKHTTPCookieStore) {
            self.store = store
            super.init()
            store.add(self)
        }

        nonisolated func cookies(for url: URL?) async throws(EngineError) -> [EngineCookie] {
            let all = await store.allCookies()
            let matching = url.map { url in all.filter { Self.matches($0, url) } } ?? all
            return matching.map(Self.engineCookie)
        }

        nonisolated func setCookie(_ cookie: EngineCookie) async throws(EngineError) {
            guard let httpCookie = Self.httpCookie(cookie) else { throw .engine("cookie \(cookie.name) is not valid") }
            await store.setCookie(httpCookie)
        }

        nonisolated func deleteCookie(_ cookie: EngineCookie) async throws(EngineError) {
            guard let httpCookie = Self.httpCookie(cookie) else { return }
            await store.deleteCookie(httpCookie)
        }

        nonisolated func observeChanges(_ observer: @escaping @Sendable () -> Void) {
            MainActor.assumeIsolated { observers.append(observer) }
        }

        nonisolated func cookiesDidChange(in cookieStore: WKHTTPCookieStore) {
            MainActor.assumeIsolated { for observer in observers { observer() } }
        }

        private nonisolated static func matches(_ cookie: HTTPCookie, _ url: URL) -> Bool {
            guard let host = url.host?.lowercased() else { return false }
            let domain = cookie.domain.lowercased()
            let domainMatches =
                domain.hasPrefix(".") ? (host == domain.dropFirst() || host.hasSuffix(domain)) : host == domain
            return domainMatches && url.path.hasPrefix(cookie.path) && (!cookie.isSecure || url.scheme == "https")
        }

        private nonisolated static func engineCookie(_ cookie: HTTPCookie) -> EngineCookie {
            EngineCookie(
                name: cookie.name, value: cookie.value, domain: cookie.domain, path: cookie.path,
                expires: cookie.expiresDate,
                isSecure: cookie.isSecure, isHTTPOnly: cookie.isHTTPOnly,
                sameSite: cookie.sameSitePolicy.flatMap { EngineCookie.SameSite(rawValue: $0.rawValue.capitalized) })
        }

        private nonisolated static func httpCookie(_ cookie: EngineCookie) -> HTTPCookie? {
            var properties: [HTTPCookiePropertyKey: Any] = [
                .name: cookie.name, .value: cookie.value, .domain: cookie.domain, .path: cookie.path,
            ]
            if let expires = cookie.expires { properties[.expires] = expires }
            if cookie.isSecure { properties[.secure] = "TRUE" }
            if cookie.isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
            if let sameSite = cookie.sameSite { properties[.sameSitePolicy] = sameSite.rawValue }
            return HTTPCookie(properties: properties)
        }
    }

    /// JSON text of a value WebKit handed over (a string, number, array, dictionary, or nothing).
    enum JSONText {
        static func encode(_ value: Any?) -> String? {
            guard let value, !(value is NSNull) else { return value == nil ? nil : "null" }
            guard JSONSerialization.isValidJSONObject([value]),
                let data = try? JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed)
            else { return nil }
            return String(decoding: data, as: UTF8.self)
        }
    }

    #if canImport(UIKit)
        import UIKit
        enum PlatformImage {
            static func png(_ image: UIImage) -> Data? { image.pngData() }
        }
    #elseif canImport(AppKit)
        import AppKit
        enum PlatformImage {
            static func png(_ image: NSImage) -> Data? {
                image.tiffRepresentation.flatMap { NSBitmapImageRep(data: $0) }?.representation(
                    using: .png, properties: [:])
            }
        }
    #endif
#endif
