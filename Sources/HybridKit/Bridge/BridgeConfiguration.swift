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
    public var limits = BridgeLimits()
    /// With `false`, pages' calls wait (queued in the page) until ``BridgeEngine/markReady()``.
    public var startsReady = true
    /// Told of every page → native call once it is answered (or refused), on the bridge's executor: keep it
    /// short. Nil (the default): nothing is told.
    public var callObserver: (@Sendable (BridgeCallRecord) -> Void)?

    public init() {}
}
