/// What a native method knows about the call it is answering.
public struct CallContext: Sendable {
    public let module: String
    public let method: String
    /// The calling frame's origin. On engines that identify the sending frame (WKWebView) it is verified;
    /// on WebKitGTK it is what the page runtime reported, checked against the main document for
    /// main-frame calls only — see ``originVerified``.
    public let origin: String
    /// True when the engine itself vouched for ``origin`` and ``isMainFrame``.
    public let originVerified: Bool
    public let isMainFrame: Bool
    /// State shared by every module of this page (the host's view controller equivalent, user info…).
    public let page: PageContext
    /// The bridge answering the call, for events and calls back into the page.
    public let bridge: BridgeEngine?

    public init(
        module: String, method: String, origin: String, originVerified: Bool, isMainFrame: Bool, page: PageContext,
        bridge: BridgeEngine?
    ) {
        self.module = module
        self.method = method
        self.origin = origin
        self.originVerified = originVerified
        self.isMainFrame = isMainFrame
        self.page = page
        self.bridge = bridge
    }
}
