/// How many views a ``WebViewPool`` keeps warm, and what every one of them carries for the host.
public struct PoolConfiguration: Sendable {
    /// Views ``WebViewPool/prewarm()`` keeps idle.
    public var warmCount: Int
    /// Idle views kept at most; a view given back to a full pool is closed.
    public var capacity: Int
    /// The host's scripts, in every pooled view for its whole life (put back after each reset).
    public var hostUserScripts: [UserScript]
    /// The host's handlers, registered once per view and kept through resets (held weakly by the engine).
    public var hostMessageHandlers: [HostMessageHandler]
    /// Longest wait for a view's blank page while warming or resetting; a view that takes longer is closed.
    public var loadTimeout: Duration

    public init(
        warmCount: Int = 1, capacity: Int = 2, hostUserScripts: [UserScript] = [],
        hostMessageHandlers: [HostMessageHandler] = [], loadTimeout: Duration = .seconds(10)
    ) {
        self.warmCount = max(0, warmCount)
        self.capacity = max(0, capacity)
        self.hostUserScripts = hostUserScripts
        self.hostMessageHandlers = hostMessageHandlers
        self.loadTimeout = loadTimeout
    }
}
