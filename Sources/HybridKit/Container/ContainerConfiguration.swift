
/// Everything a page needs, given once when its container is created.
public struct ContainerConfiguration: Sendable {
    public var modules: [BridgeModule]
    public var bridge: BridgeConfiguration
    /// The page's own scripts, injected after the bridge runtime.
    public var userScripts: [UserScript]
    /// Handlers of the host's, for this page only (held weakly by the engine, strongly by the container).
    public var messageHandlers: [HostMessageHandler]
    /// What the page has on top of the bridge: offline packages (``PackageServing``), request-body hooks
    /// (``RequestInterceptionFeature``), `document.cookie` (``DocumentCookieFeature``), remote configuration
    /// (``RemoteConfigApplication``), or the host's own ``PageFeature``s.
    public var features: [any PageFeature]
    /// White-screen recovery; nil turns it off.
    public var recovery: RecoveryPolicy?
    public var userAgent: String?
    /// Non-web schemes, new windows, dialogs, downloads and failed sub-resources (see
    /// ``NavigationPolicyController``); the container's ``HybridContainer/navigationPolicyHost`` hears them.
    /// The schemes the container serves (packages, features) are added to its loadable schemes. Nil: no policy
    /// (the engine's defaults; the host's ``HybridContainer/navigationDelegate`` decides alone).
    public var navigationPolicy: NavigationPolicyConfiguration?
    /// Whether the page starts on screen (see ``HybridContainer/setVisible(_:)``).
    public var isVisible: Bool

    public init(
        modules: [BridgeModule] = [], bridge: BridgeConfiguration = BridgeConfiguration(),
        userScripts: [UserScript] = [], messageHandlers: [HostMessageHandler] = [],
        features: [any PageFeature] = [], recovery: RecoveryPolicy? = RecoveryPolicy(), userAgent: String? = nil,
        navigationPolicy: NavigationPolicyConfiguration? = nil, isVisible: Bool = true
    ) {
        self.modules = modules
        self.bridge = bridge
        self.userScripts = userScripts
        self.messageHandlers = messageHandlers
        self.features = features
        self.recovery = recovery
        self.userAgent = userAgent
        self.navigationPolicy = navigationPolicy
        self.isVisible = isVisible
    }
}
