
/// Something a page can have on top of the bridge: request-body hooks, cookie sync, a native proxy…
///
/// A feature contributes to the page before the engine is wired (scripts at document start, bridge modules,
/// scheme handlers or wrappers around them), then gets the wired page and may keep a session that lives as long
/// as the page. The container calls everything on the engine's executor, in the order the features are listed.
public protocol PageFeature: Sendable {
    func contribute(to assembly: inout PageAssembly) throws
    /// Called once the page is wired and before the first load. The session is closed with the container.
    func attach(to page: HybridPage) throws -> (any PageFeatureSession)?
}

extension PageFeature {
    public func attach(to page: HybridPage) throws -> (any PageFeatureSession)? { nil }
}

/// A feature's state for one page. Closed when the container closes, before the view is closed or pooled.
public protocol PageFeatureSession: AnyObject {
    func close()
}

/// What a page is made of, before it is wired to an engine.
public struct PageAssembly: Sendable {
    public var modules: [BridgeModule]
    /// Injected after the bridge runtime, in this order.
    public var userScripts: [UserScript]
    /// Custom schemes the page serves, by scheme (lowercase).
    public var schemeHandlers: [String: any SchemeHandler]
    /// Applied to every scheme handler once all features contributed, in the order added: lets a feature
    /// (say, body hooks) sit in front of whatever serves a scheme.
    public var schemeHandlerWrappers: [@Sendable (String, any SchemeHandler) -> any SchemeHandler]
    /// The engine the page is being wired to, for what must run on its executor (``EngineExecutorHop/hop(onExecutorOf:)``).
    /// Handlers the engine keeps must not hold it strongly: that would be a cycle.
    public let engine: (any WebEngine)?

    public init(
        modules: [BridgeModule] = [], userScripts: [UserScript] = [], schemeHandlers: [String: any SchemeHandler] = [:],
        engine: (any WebEngine)? = nil
    ) {
        self.engine = engine
        self.modules = modules
        self.userScripts = userScripts
        self.schemeHandlers = schemeHandlers
        self.schemeHandlerWrappers = []
    }

    /// The handlers with every wrapper applied.
    func wrappedSchemeHandlers() -> [String: any SchemeHandler] {
        var result: [String: any SchemeHandler] = [:]
        for (scheme, handler) in schemeHandlers {
            result[scheme.lowercased()] = schemeHandlerWrappers.reduce(handler) { $1(scheme, $0) }
        }
        return result
    }
}
