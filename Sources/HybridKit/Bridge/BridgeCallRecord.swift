/// One page → native call as it was answered, for a host that shows or records calls (`hybrid run` prints one
/// line per call). Given to ``BridgeConfiguration/callObserver``.
public struct BridgeCallRecord: Sendable, Equatable {
    /// The module and method the page asked for, as it wrote them: page-controlled text (a name no module has,
    /// control characters), so escape it before showing it.
    public let module: String
    public let method: String
    /// The calling frame's origin, as the bridge checked it (see ``CallContext/origin``).
    public let origin: String
    public let originVerified: Bool
    public let isMainFrame: Bool
    /// Nil when the method answered; the error the page got otherwise.
    public let error: BridgeError.Code?
    /// From the message's arrival to the answer.
    public let duration: Duration

    public init(
        module: String, method: String, origin: String, originVerified: Bool, isMainFrame: Bool,
        error: BridgeError.Code?, duration: Duration
    ) {
        self.module = module
        self.method = method
        self.origin = origin
        self.originVerified = originVerified
        self.isMainFrame = isMainFrame
        self.error = error
        self.duration = duration
    }
}
