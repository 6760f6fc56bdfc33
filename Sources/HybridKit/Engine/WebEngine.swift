import Foundation

/// The port: what the core needs from a web view, and nothing more.
///
/// Roughly what WKWebView offers. Each engine (WebKitGTK here, WKWebView on Apple platforms) implements it
/// in a thin adapter that holds no policy. Every requirement is isolated to ``EngineActor``, the actor that owns
/// the engine (the main actor on Apple platforms, the engine thread GTK runs on under Linux), and so is every core
/// type that talks to an engine: the compiler checks each call, with no hops between them.
@EngineActor
public protocol WebEngine: AnyObject, Sendable {
    // MARK: Loading
    /// Loads `request` in the main frame. Engines that cannot send its method or body refuse it
    /// (``EngineError/unsupported(_:)``) rather than silently load a different request.
    func load(_ request: EngineRequest) throws(EngineError)
    func loadHTML(_ html: String, baseURL: URL?)
    /// Shows `responseData` as the main frame's document, as if `request` had been sent and answered with
    /// `response` (WKWebView's `loadSimulatedRequest(_:response:responseData:)`): the document gets
    /// `request.url` as its URL and that URL's security origin, and nothing is sent for it. The engine applies
    /// what it can of `response` as it would apply a network response; one that would lose something it applies
    /// (a status, a header of ``SimulatedLoadHeaders/documentLayer``) throws ``EngineError/unsupported(_:)``,
    /// naming it, and loads nothing, so the caller can load `request` the plain way. `Set-Cookie` in `response`
    /// is not applied: the caller puts cookies in the engine's store first.
    func loadSimulatedRequest(_ request: EngineRequest, response: SchemeResponse, responseData: Data)
        throws(EngineError)
    func loadFile(_ fileURL: URL, allowingReadAccessTo directory: URL)
    /// Starts the web content process a view's first load needs, so that its launch overlaps what the caller
    /// does before that load (a network page's document fetch), instead of following it. Engines that do it load
    /// a blank document (`about:blank`) that leaves no history entry; its navigation events name `about:blank`.
    /// False, and nothing done, when the view has loaded before or the engine cannot do it without a history
    /// entry: the first load starts the process then, as it always did.
    func startWebProcess() -> Bool
    func reload()
    func stopLoading()
    var url: URL? { get }
    var title: String? { get }

    // MARK: Scripts
    /// Evaluates `script` in the main frame and returns the result as JSON text (`nil` for `undefined`).
    func evaluateJavaScript(_ script: String) async throws(EngineError) -> String?
    /// Evaluates `script` in the main frame without waiting for, or converting, its result.
    /// The cheap form for native→JS messages whose result nobody reads.
    func evaluateJavaScriptIgnoringResult(_ script: String)
    /// Calls `body` as the body of an async function in the main frame's page world, its parameters named by the
    /// keys of `arguments` and bound to their values, and returns what it returns (awaited when a promise) as JSON
    /// text (`nil` for `undefined`). The engine hands the arguments over as values, never as source: a megabyte
    /// string is neither escaped natively nor read by the script parser (WKWebView's
    /// `callAsyncJavaScript(_:arguments:in:in:)`, WebKitGTK's `webkit_web_view_call_async_javascript_function`).
    func callAsyncJavaScript(_ body: String, arguments: [String: JavaScriptArgument]) async throws(EngineError)
        -> String?
    /// ``callAsyncJavaScript(_:arguments:)`` without waiting for, or converting, its result.
    func callAsyncJavaScriptIgnoringResult(_ body: String, arguments: [String: JavaScriptArgument])
    func addUserScript(_ script: UserScript)
    /// Removes the first added script equal to `script` (documents loaded later no longer get it); nothing if none.
    func removeUserScript(_ script: UserScript)
    func removeAllUserScripts()
    /// Registers `handler` under `name` (`window.webkit.messageHandlers[name]` in pages).
    /// With `replies: true` and an engine that supports it, `postMessage` returns a promise the handler settles.
    func addScriptMessageHandler(_ handler: any ScriptMessageHandler, name: String, replies: Bool)
    func removeScriptMessageHandler(name: String)
    /// Whether ``addScriptMessageHandler(_:name:replies:)`` can deliver replies on this engine.
    var supportsMessageReplies: Bool { get }
    /// Whether messages from the bridge runtime arrive with a ``ScriptMessage/frame`` the engine vouches for.
    /// When true, messages without one (posted around the runtime) are not to be trusted.
    var verifiesMessageFrames: Bool { get }

    // MARK: Networking
    /// Routes requests for `scheme` to `handler`. Engines may require this before the first load.
    func setSchemeHandler(_ handler: any SchemeHandler, forScheme scheme: String) throws(EngineError)
    var cookieStore: any EngineCookieStore { get }

    // MARK: Navigation and lifecycle
    /// The delegate is held weakly; the engine never keeps its owner alive.
    var navigationDelegate: (any NavigationDelegate)? { get set }
    var customUserAgent: String? { get set }
    /// Hears script dialogs, downloads and sub-resource failures; held weakly, like ``navigationDelegate``.
    var uiDelegate: (any EngineUIDelegate)? { get set }
    /// Kills the web content process (for tests of white-screen recovery and for hosts that need it).
    func terminateWebProcess()
    /// A PNG image of what the page shows now.
    func snapshotPNG() async throws(EngineError) -> Data
    /// Tears the view down now (stops loads, ends its scheme tasks, frees its process) rather than whenever it
    /// is released. Later calls do nothing.
    func close()

    // MARK: Website data
    /// Removes data of `types`: all of it when `modifiedSince` is nil, else what was written since that date.
    /// Engines usually keep this data per context (process-wide), not per view. An engine that cannot honour
    /// `modifiedSince` for a type (WebKitGTK for cookies) throws ``EngineError/unsupported(_:)`` and clears nothing.
    func clearWebsiteData(_ types: WebsiteDataTypes, modifiedSince: Date?) async throws(EngineError)

    // MARK: History, for pools that hand a used view to the next page
    /// Opaque bytes describing the back/forward history, to restore later with ``restoreHistory(_:)``.
    /// Nil when the engine cannot do this; a pool then never reuses a view whose history grew.
    func historySnapshot() -> Data?
    /// Replaces the back/forward history with `snapshot`, without navigating. False when it could not.
    func restoreHistory(_ snapshot: Data) -> Bool
    /// Entries in the back/forward list as the engine keeps it, nil when it cannot say. (A document's own
    /// `history.length` can lag behind a restored list until the next navigation: WebKitGTK 2.50.)
    var historyLength: Int? { get }
}
