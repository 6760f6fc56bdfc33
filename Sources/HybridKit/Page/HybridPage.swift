import Foundation

/// One page: an engine with a bridge attached, and the navigation events the bridge must hear.
///
/// The host creates it on the engine's executor, registers modules, and loads. It is the engine's
/// navigation delegate and passes every event on to ``delegate``.
public final class HybridPage: NavigationDelegate, @unchecked Sendable {
    // Every member is used on the engine's executor only (the port's contract), which serialises access.
    public let engine: any WebEngine
    public let bridge: BridgeEngine
    public weak var delegate: (any NavigationDelegate)?

    public init(
        engine: any WebEngine, modules: [BridgeModule] = [], configuration: BridgeConfiguration = BridgeConfiguration()
    )
        throws
    {
        self.engine = engine
        bridge = try BridgeEngine(engine: engine, modules: ModuleRegistry(modules), configuration: configuration)
        engine.navigationDelegate = self
    }

    /// Closes the bridge (pending calls fail with `closed`) and detaches from the engine.
    public func close() {
        bridge.assumeIsolated { $0.close() }
        if engine.navigationDelegate === self { engine.navigationDelegate = nil }
    }

    public func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy {
        // The classic WebViewJavascriptBridge bootstrap loads this URL in a hidden iframe to wake the
        // native side; here the bridge is always there, so the load is dropped instead of hitting the network.
        if action.request.url.host?.lowercased() == "__bridge_loaded__" { return .cancel }
        return delegate?.decidePolicy(for: action) ?? .allow
    }

    public func decidePolicy(for response: NavigationResponse) -> NavigationResponsePolicy {
        delegate?.decidePolicy(for: response) ?? (response.canShowMIMEType ? .allow : .download)
    }

    public func didStartNavigation(to url: URL?) { delegate?.didStartNavigation(to: url) }

    public func didCommitNavigation(to url: URL?) {
        bridge.assumeIsolated { $0.pageDidNavigate() }
        delegate?.didCommitNavigation(to: url)
    }

    public func didFinishNavigation(to url: URL?) { delegate?.didFinishNavigation(to: url) }

    public func didFailNavigation(to url: URL?, error: String) { delegate?.didFailNavigation(to: url, error: error) }

    public func webProcessDidTerminate(reason: WebProcessTerminationReason) {
        bridge.assumeIsolated { $0.pageDidNavigate() }
        delegate?.webProcessDidTerminate(reason: reason)
    }
}
