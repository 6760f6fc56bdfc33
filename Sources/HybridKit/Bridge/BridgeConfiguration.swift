/// How a bridge presents itself to pages.
public struct BridgeConfiguration: Sendable {
    /// Script message handler for main-frame messages (answered by one evaluation per batch).
    public var handlerName = "hybrid"
    /// Reply-capable handler for subframes, which evaluation cannot reach.
    public var replyHandlerName = "hybridReply"
    /// The page-global function native→page batches are delivered to.
    public var receiverName = "__hybridReceive"
    /// The module that answers `WebViewJavascriptBridge.callHandler`.
    public var wvjbModuleName = "wvjb"
    /// The module that answers DSBridge calls without a namespace (`dsBridge.call('testSyn')`); a namespaced
    /// call (`'echo.syn'`, `'a.b.method'`) goes to the module named by the namespace (`echo`, `a.b`).
    public var dsbridgeModuleName = "dsbridge"
    /// Whether every frame gets DSBridge's page API (`dsBridge`, `_dsf`, `_dsaf`, `_dswk`, and `prompt()`
    /// answering `_dsbridge=` calls). Off leaves those globals to the page.
    public var dsbridgeCompatibility = true
    public var limits = BridgeLimits()
    /// The custom scheme binary values travel on (`<scheme>://bridge/…`), served by the bridge itself. WKWebView
    /// takes scheme handlers only when a view is made: name it in `WKEngineFactory.schemes` (its default does). An
    /// engine that will not take it leaves binary values off, with a warning.
    public var bytesScheme = BridgeConfiguration.defaultBytesScheme
    /// See ``bytesScheme``.
    public static let defaultBytesScheme = "hybrid-bytes"
    /// Batches for the main frame of at least this many bytes are handed to the runtime as the argument of a page
    /// function (``WebEngine/callAsyncJavaScript(_:arguments:)``) rather than evaluated as a string literal: past
    /// it, escaping the text natively and reading the literal in the page cost more than the function call does
    /// (`hybrid bench bridge`, BENCHMARKS.md). 0 sends every batch that way, `Int.max` none.
    public var functionCallThreshold = BridgeConfiguration.defaultFunctionCallThreshold
    /// See ``functionCallThreshold``.
    public static let defaultFunctionCallThreshold = 16 << 10
    /// With `false`, pages' calls wait (queued in the page) until ``BridgeEngine/markReady()``.
    public var startsReady = true
    /// Told of every page → native call once it is answered (or refused), on the bridge's executor: keep it
    /// short. Nil (the default): nothing is told.
    public var callObserver: (@Sendable (BridgeCallRecord) -> Void)?

    public init() {}
}
