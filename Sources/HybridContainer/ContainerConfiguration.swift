import HybridCore

/// Everything a page needs, given once when its container is created.
public struct ContainerConfiguration: Sendable {
    public var modules: [BridgeModule]
    public var bridge: BridgeConfiguration
    /// The page's own scripts, injected after the bridge runtime.
    public var userScripts: [UserScript]
    /// Handlers of the host's, for this page only (held weakly by the engine, strongly by the container).
    public var messageHandlers: [HostMessageHandler]
    public var packages: PackageServing?
    /// Extra capabilities (body hooks, cookie sync…), wired in this order.
    public var features: [any PageFeature]
    /// White-screen recovery; nil turns it off.
    public var recovery: RecoveryPolicy?
    public var userAgent: String?
    /// Whether the page starts on screen (see ``HybridContainer/setVisible(_:)``).
    public var isVisible: Bool

    public init(
        modules: [BridgeModule] = [], bridge: BridgeConfiguration = BridgeConfiguration(),
        userScripts: [UserScript] = [], messageHandlers: [HostMessageHandler] = [], packages: PackageServing? = nil,
        features: [any PageFeature] = [], recovery: RecoveryPolicy? = RecoveryPolicy(), userAgent: String? = nil,
        isVisible: Bool = true
    ) {
        self.modules = modules
        self.bridge = bridge
        self.userScripts = userScripts
        self.messageHandlers = messageHandlers
        self.packages = packages
        self.features = features
        self.recovery = recovery
        self.userAgent = userAgent
        self.isVisible = isVisible
    }
}
