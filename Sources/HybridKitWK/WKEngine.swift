#if canImport(WebKit) || os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit
import Logging
#if os(Linux)
// Linux only: Apple's WebKit API, declared and enforced by the stand-in and backed by WebKitGTK.
import WebKitStandIn
#else
import WebKit
#endif

/// The WKWebView implementation of the port, kept thin: every requirement maps onto WebKit calls.
///
/// Built and tested on Linux against `WebKitStandIn` (WebKit's API and run-time rules over WebKitGTK); on a Mac
/// `swift test` runs `WKWebViewHostTests` against the real WKWebView. Differences from WebKitGTK that callers see:
/// - WKWebView takes scheme handlers only before the view exists: name the schemes when creating the engine
///   (``init(configuration:schemes:settings:frame:)``, ``WKEngineFactory/schemes``); ``setSchemeHandler(_:forScheme:)``
///   then routes them, and throws for a scheme that was not named;
/// - ``terminateWebProcess()`` does nothing: WKWebView has no public API for it (the only way in is the private
///   `_killWebContentProcess`, which an App Store app may not call), so white-screen recovery is tested on
///   WebKitGTK and happens here when WebKit itself loses the process;
/// - ``close()`` cannot release the WKWebView (``webView`` stays readable); it stops loads and scheme tasks,
///   unregisters everything and blanks the page, and the view goes when the engine is released.
///
/// Its requirements are main-actor isolated, as the port's are (`EngineActor` is the main actor here): the
/// compiler checks every call.
@MainActor
public final class WKEngine: NSObject, WebEngine {
    public let webView: WKWebView
    private var schemeBridges: [String: SchemeHandlerBridge] = [:]
    // The engine owns its handlers; the bridges the configuration retains hold them weakly (see
    // SchemeHandlerBridge), so a view a host keeps does not keep a dropped container's handlers alive.
    private var schemeHandlers: [String: any SchemeHandler] = [:]
    private var messageProxies: [String: MessageProxy] = [:]
    private var addedScripts: [UserScript] = []
    /// Scripts the host's configuration already held: WKUserContentController removes scripts only all at once, and
    /// these are put back each time.
    private var configurationScripts: [WKUserScript] = []
    /// Dialogs a UI delegate holds a reply for (weakly: a reply the host drops answers with its defaults itself).
    var openDialogs: [OpenDialog] = []
    private weak var delegate: (any NavigationDelegate)?
    weak var uiDelegateStorage: (any EngineUIDelegate)?
    private let cookies: WKCookieStore
    private(set) var closed = false
    nonisolated static let logger = Logger(label: "hybrid.wk")
    /// A view's frame until the host lays it out: a phone screen in points, so a pooled page lays out and
    /// snapshots as it will be shown.
    public nonisolated static let defaultViewFrame = CGRect(x: 0, y: 0, width: 390, height: 844)

    /// - Parameters:
    ///   - configuration: the web view's configuration; the schemes' handlers and `settings` are added to it.
    ///   - schemes: custom schemes this view will serve; WKWebView cannot add one later. Handlers are set
    ///     with ``setSchemeHandler(_:forScheme:)``; until then a request to the scheme fails as not found.
    ///   - settings: applied to `configuration` before the view is made (WKWebView copies it at creation).
    ///   - frame: the view's frame until the host lays it out; not empty, since WebKit cannot snapshot an empty
    ///     view (``defaultViewFrame``, a phone screen in points).
    /// - Throws: `EngineError.schemeNotAllowed` for a scheme WebKit handles itself (http, https, file…)
    ///   or one `configuration` already has a handler for — WebKit would raise an exception for either.
    public init(
        configuration: WKWebViewConfiguration = WKWebViewConfiguration(), schemes: Set<String> = [],
        settings: WebViewSettings = WebViewSettings(), frame: CGRect = WKEngine.defaultViewFrame
    ) throws(EngineError) {
        // Two engines on one content controller would register the bridge's handler names twice (WebKit raises)
        // and remove each other's scripts: a configuration mistake, said here rather than as a crash later.
        let controller = ObjectIdentifier(configuration.userContentController)
        Self.controllersInUse = Self.controllersInUse.filter { $0.value.engine?.closed == false }
        guard Self.controllersInUse[controller] == nil else { throw .unsupported(Self.sharedControllerAdvice) }
        for scheme in schemes.map({ $0.lowercased() }).sorted() {
            guard !WKWebView.handlesURLScheme(scheme), configuration.urlSchemeHandler(forURLScheme: scheme) == nil,
                Self.isValidScheme(scheme)
            else { throw .schemeNotAllowed(scheme) }
            let bridge = SchemeHandlerBridge()
            configuration.setURLSchemeHandler(bridge, forURLScheme: scheme)
            schemeBridges[scheme] = bridge
        }
        Self.apply(settings, to: configuration)
        if frame.isEmpty {
            Self.logger.notice(
                "WKEngine given an empty frame \(frame.size.width)×\(frame.size.height): using \(Self.defaultViewFrame.size.width)×\(Self.defaultViewFrame.size.height) instead, since WebKit cannot snapshot an empty view; pass a non-empty frame"
            )
        }
        webView = WKWebView(frame: frame.isEmpty ? Self.defaultViewFrame : frame, configuration: configuration)
        if case .replacing(let agent) = settings.userAgent { webView.customUserAgent = agent }
        cookies = WKCookieStore(store: webView.configuration.websiteDataStore.httpCookieStore)
        configurationScripts = webView.configuration.userContentController.userScripts
        super.init()
        Self.controllersInUse[controller] = EngineReference(engine: self)
        webView.navigationDelegate = self
    }

    /// The content controllers of the engines alive and not closed, by identity (an engine's configuration keeps
    /// its controller alive, so the identity is not reused while the engine lives).
    private static var controllersInUse: [ObjectIdentifier: EngineReference] = [:]
    private struct EngineReference { weak var engine: WKEngine? }
    static let sharedControllerAdvice =
        "this configuration's WKUserContentController belongs to another open WKEngine; give each engine a "
        + "configuration with a WKUserContentController of its own (a WKEngineFactory's makeConfiguration must "
        + "return a new one each time)"

    /// The earlier form: schemes with their handlers at once.
    public convenience init(
        configuration: WKWebViewConfiguration = WKWebViewConfiguration(),
        schemeHandlers: [String: any SchemeHandler], settings: WebViewSettings = WebViewSettings()
    ) throws(EngineError) {
        try self.init(configuration: configuration, schemes: Set(schemeHandlers.keys), settings: settings)
        for (scheme, handler) in schemeHandlers where schemeBridges[scheme.lowercased()] != nil {
            self.schemeHandlers[scheme.lowercased()] = handler
            schemeBridges[scheme.lowercased()]?.handler = handler
        }
    }

    // MARK: Loading

    public func load(_ request: EngineRequest) throws(EngineError) {
        guard !closed else { throw .viewClosed }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        webView.load(urlRequest)
    }

    public func loadHTML(_ html: String, baseURL: URL?) {
        if !closed { _ = webView.loadHTMLString(html, baseURL: baseURL) }
    }

    /// `loadSimulatedRequest(_:response:responseData:)`, which WebKit runs through its document loader as a
    /// network response: the status and every header go with it (CSP and the other document-level headers apply).
    public func loadSimulatedRequest(
        _ request: EngineRequest, response: SchemeResponse, responseData: Data
    ) throws(EngineError) {
        guard !closed else { throw .viewClosed }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        guard
            let answer = HTTPURLResponse(
                url: request.url, statusCode: response.statusCode, httpVersion: "HTTP/1.1",
                headerFields: response.headers)
        else { throw .unsupported("a simulated response Foundation cannot represent") }
        _ = webView.loadSimulatedRequest(urlRequest, response: answer, responseData: responseData)
    }

    /// Not done on WKWebView: whether a blank `loadHTMLString` leaves a back-forward item the page could go back
    /// to has not been checked on a device, so the first load starts the process, as before.
    public nonisolated func startWebProcess() -> Bool { false }

    public func loadFile(_ fileURL: URL, allowingReadAccessTo directory: URL) {
        if !closed { _ = webView.loadFileURL(fileURL, allowingReadAccessTo: directory) }
    }

    public func reload() { if !closed { _ = webView.reload() } }
    public func stopLoading() { webView.stopLoading() }
    public var url: URL? { webView.url }
    public var title: String? { webView.title }

    // MARK: Scripts

    /// Hops to the main actor itself: an async requirement runs on the global executor when called, and
    /// WebKit's API must be called on the main thread.
    public nonisolated func evaluateJavaScript(_ script: String) async throws(EngineError) -> String? {
        try await evaluate(script).get()
    }

    private func evaluate(_ script: String) async -> Result<String?, EngineError> {
        guard !closed else { return .failure(.viewClosed) }
        return await withCheckedContinuation { continuation in
            webView.evaluateJavaScript(script) { value, error in
                continuation.resume(returning: Self.scriptResult(value, error))
            }
        }
    }

    /// WebKit reports an `undefined` result as error 5 (unsupported result type); the port calls it nil.
    nonisolated static func scriptResult(_ value: Any?, _ error: (any Error)?) -> Result<String?, EngineError> {
        guard let error else { return .success(JSONText.encode(value)) }
        let nsError = error as NSError
        if nsError.domain == WKErrorDomain && nsError.code == 5 { return .success(nil) }
        let message = nsError.userInfo["WKJavaScriptExceptionMessage"] as? String ?? nsError.localizedDescription
        return .failure(.javaScript(message))
    }

    public func evaluateJavaScriptIgnoringResult(_ script: String) {
        if !closed { webView.evaluateJavaScript(script, completionHandler: nil) }
    }

    /// Hops to the main actor itself, as ``evaluateJavaScript(_:)`` does.
    public nonisolated func callAsyncJavaScript(_ body: String, arguments: [String: JavaScriptArgument])
        async throws(EngineError) -> String?
    {
        try await callFunction(body, arguments: arguments).get()
    }

    private func callFunction(_ body: String, arguments: [String: JavaScriptArgument]) async
        -> Result<String?, EngineError>
    {
        guard !closed else { return .failure(.viewClosed) }
        return await withCheckedContinuation { continuation in
            webView.callAsyncJavaScript(body, arguments: Self.values(arguments), in: nil, in: .page) { result in
                switch result {
                case .success(let value): continuation.resume(returning: Self.scriptResult(Self.unwrapped(value), nil))
                case .failure(let error): continuation.resume(returning: Self.scriptResult(nil, error))
                }
            }
        }
    }

    public func callAsyncJavaScriptIgnoringResult(_ body: String, arguments: [String: JavaScriptArgument]) {
        guard !closed else { return }
        webView.callAsyncJavaScript(
            body, arguments: Self.values(arguments), in: nil, in: .page, completionHandler: nil)
    }

    /// An `undefined` result arrives as a nil optional inside the `Any`: the port calls it nil.
    nonisolated static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }

    /// The arguments as the Foundation values WebKit converts (strings, numbers, dictionaries).
    nonisolated static func values(_ arguments: [String: JavaScriptArgument]) -> [String: Any] {
        arguments.mapValues(value)
    }

    nonisolated static func value(_ argument: JavaScriptArgument) -> Any {
        switch argument {
        case .string(let text): text
        case .number(let number): number
        case .object(let members): members.mapValues(value)
        }
    }

    public func addUserScript(_ script: UserScript) {
        guard !closed else { return }
        webView.configuration.userContentController.addUserScript(
            WKUserScript(
                source: script.source,
                injectionTime: script.injectionTime == .documentStart ? .atDocumentStart : .atDocumentEnd,
                forMainFrameOnly: !script.allFrames))
        addedScripts.append(script)
    }

    public func removeAllUserScripts() {
        let controller = webView.configuration.userContentController
        controller.removeAllUserScripts()
        for script in configurationScripts { controller.addUserScript(script) }
        addedScripts.removeAll()
    }

    /// WKUserContentController removes scripts only all at once: remove all, add back the others in order.
    public func removeUserScript(_ script: UserScript) {
        guard let index = addedScripts.firstIndex(of: script) else { return }
        var kept = addedScripts
        kept.remove(at: index)
        removeAllUserScripts()
        for script in kept { addUserScript(script) }
    }

    public nonisolated var supportsMessageReplies: Bool { true }
    public nonisolated var verifiesMessageFrames: Bool { true }

    public func addScriptMessageHandler(
        _ handler: any ScriptMessageHandler, name: String, replies: Bool
    ) {
        guard !closed else { return }
        // WebKit raises for a second handler under one name: replace instead.
        removeScriptMessageHandler(name: name)
        let proxy = MessageProxy(handler: handler)
        let controller = webView.configuration.userContentController
        if replies {
            controller.addScriptMessageHandler(proxy, contentWorld: .page, name: name)
        } else {
            controller.add(proxy, contentWorld: .page, name: name)
        }
        messageProxies[name] = proxy
    }

    public func removeScriptMessageHandler(name: String) {
        guard messageProxies.removeValue(forKey: name) != nil else { return }
        webView.configuration.userContentController.removeScriptMessageHandler(
            forName: name, contentWorld: .page)
    }

    // MARK: Networking

    public func setSchemeHandler(_ handler: any SchemeHandler, forScheme scheme: String)
        throws(EngineError)
    {
        let key = scheme.lowercased()
        if closed { throw .viewClosed }
        if WKWebView.handlesURLScheme(key) { throw .schemeNotAllowed(scheme) }
        guard let bridge = schemeBridges[key] else {
            throw .unsupported(
                "adding the '\(scheme)' scheme after the WKWebView exists; name it when creating the engine "
                    + "(WKEngine(schemes:) or WKEngineFactory(schemes:))")
        }
        schemeHandlers[key] = handler
        bridge.handler = handler
    }

    public var cookieStore: any EngineCookieStore { cookies }

    // MARK: Navigation and lifecycle

    public var navigationDelegate: (any NavigationDelegate)? {
        get { delegate }
        set { delegate = newValue }
    }

    public var uiDelegate: (any EngineUIDelegate)? {
        get { uiDelegateStorage }
        set {
            uiDelegateStorage = newValue
            webView.uiDelegate = newValue == nil ? nil : self
        }
    }

    public var customUserAgent: String? {
        get { webView.customUserAgent }
        set { webView.customUserAgent = newValue }
    }

    /// Unsupported: WKWebView has no public way to end its web content process (see the type's notes).
    public nonisolated func terminateWebProcess() {
        Self.logger.notice("terminateWebProcess() is not supported by WKWebView (no public API); nothing done")
    }

    public nonisolated func snapshotPNG() async throws(EngineError) -> Data {
        try await snapshot().get()
    }

    private func snapshot() async -> Result<Data, EngineError> {
        guard !closed else { return .failure(.viewClosed) }
        return await withCheckedContinuation { continuation in
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

    public func close() {
        guard !closed else { return }
        closed = true
        webView.stopLoading()
        // Scheme tasks end now: handlers hear stop, and calls they still make are dropped, not sent.
        for bridge in schemeBridges.values {
            bridge.stopAll()
            bridge.handler = nil
        }
        // Requests the view still makes fail as not found; the handlers go with the engine's hold on them.
        schemeHandlers.removeAll()
        for name in messageProxies.keys {
            webView.configuration.userContentController.removeScriptMessageHandler(
                forName: name, contentWorld: .page)
        }
        messageProxies.removeAll()
        // WebKit keeps the observer's key until it is removed (see WKCookieStore).
        cookies.detach()
        webView.configuration.userContentController.removeAllUserScripts()
        addedScripts.removeAll()
        delegate = nil
        uiDelegateStorage = nil
        // A dialog the host still holds a reply for is answered with the defaults: until then the page stays
        // blocked in alert(), confirm() or prompt(), and WebKit's suspended call keeps the view.
        let open = openDialogs
        openDialogs.removeAll()
        for entry in open { entry.reply?.answer(ScriptDialogDefaults().answer(for: entry.dialog)) }
        webView.uiDelegate = nil
        webView.navigationDelegate = nil
        _ = webView.loadHTMLString("", baseURL: nil)
    }

    // MARK: Website data

    public func clearWebsiteData(_ types: WebsiteDataTypes, modifiedSince: Date?)
        async throws(EngineError)
    {
        await removeData(types, since: modifiedSince ?? .distantPast)
    }

    private func removeData(_ types: WebsiteDataTypes, since date: Date) async {
        var names: Set<String> = []
        let pairs: [(WebsiteDataTypes, String)] = [
            (.memoryCache, WKWebsiteDataTypeMemoryCache), (.diskCache, WKWebsiteDataTypeDiskCache),
            (.diskCache, WKWebsiteDataTypeFetchCache), (.sessionStorage, WKWebsiteDataTypeSessionStorage),
            (.localStorage, WKWebsiteDataTypeLocalStorage), (.indexedDB, WKWebsiteDataTypeIndexedDBDatabases),
            (.cookies, WKWebsiteDataTypeCookies),
            (.serviceWorkers, WKWebsiteDataTypeServiceWorkerRegistrations),
        ]
        for (type, name) in pairs where types.contains(type) { names.insert(name) }
        guard !names.isEmpty else { return }
        await webView.configuration.websiteDataStore.removeData(ofTypes: names, modifiedSince: date)
    }

    // MARK: History

    public func historySnapshot() -> Data? {
        webView.interactionState as? Data
    }

    public func restoreHistory(_ snapshot: Data) -> Bool {
        guard !closed else { return false }
        webView.interactionState = snapshot
        return true
    }

    public var historyLength: Int? {
        let list = webView.backForwardList
        return list.backList.count + list.forwardList.count + (list.currentItem == nil ? 0 : 1)
    }

    // MARK: Helpers

    /// Open scheme tasks across this view's schemes (finished, failed and stopped ones are released).
    var openSchemeTaskCount: Int { schemeBridges.values.reduce(0) { $0 + $1.openTaskCount } }

    private static func apply(_ settings: WebViewSettings, to configuration: WKWebViewConfiguration) {
        if let value = settings.mediaPlaybackRequiresUserGesture {
            configuration.mediaTypesRequiringUserActionForPlayback = value ? .all : []
        }
        #if !os(macOS)
        // iOS only (WebKit marks it unavailable on macOS, where media always plays inline).
        if let value = settings.allowsInlineMediaPlayback { configuration.allowsInlineMediaPlayback = value }
        #endif
        if let value = settings.javaScriptCanOpenWindowsAutomatically {
            configuration.preferences.javaScriptCanOpenWindowsAutomatically = value
        }
        // WebKit appends `applicationNameForUserAgent` to its own user agent: the policy's "appending".
        if case .appending(let suffix) = settings.userAgent, !suffix.isEmpty {
            let current = configuration.applicationNameForUserAgent ?? ""
            configuration.applicationNameForUserAgent = current.isEmpty ? suffix : "\(current) \(suffix)"
        }
    }

    /// RFC 3986 scheme syntax; WebKit raises for anything else.
    nonisolated static func isValidScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
        return scheme.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "."
        }
    }
}

/// JSON text of a value WebKit handed over (a string, number, array, dictionary, or nothing).
enum JSONText {
    static func encode(_ value: Any?) -> String? {
        guard let value else { return nil }
        if value is NSNull { return "null" }
        guard JSONSerialization.isValidJSONObject([value]),
            let data = try? JSONSerialization.data(
                withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

#if os(Linux)
/// The stand-in's main queue: its main actor is the engine thread.
typealias MainQueue = StandInMainQueue
#else
/// The main queue, the main actor's executor.
enum MainQueue {
    static func async(_ body: @escaping @MainActor @Sendable () -> Void) {
        DispatchQueue.main.async { body() }
    }
}
#endif

#if os(Linux)
enum PlatformImage {
    static func png(_ image: UIImage) -> Data? { image.pngData() }
}
#elseif canImport(UIKit)
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
