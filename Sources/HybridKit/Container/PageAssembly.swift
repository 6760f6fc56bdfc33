import Foundation

/// What a page is made of, before it is wired to an engine.
public struct PageAssembly: Sendable {
    public var modules: [BridgeModule]
    /// Injected after the bridge runtime, in this order.
    public var userScripts: [UserScript]
    /// Injected before the bridge runtime, in this order: HybridKit's own page runtimes that must take what the
    /// engine defines in each document (the frame-stamped post WebKitGTK's web-process extension gives every
    /// frame) before the bridge runtime takes it and removes it from the page's reach.
    var earlyUserScripts: [UserScript] = []
    /// Custom schemes the page serves, by scheme (lowercase).
    public var schemeHandlers: [String: any SchemeHandler]
    /// Applied to every scheme handler once all features contributed, in the order added: lets a feature
    /// (say, body hooks) sit in front of whatever serves a scheme.
    public var schemeHandlerWrappers: [@EngineActor @Sendable (String, any SchemeHandler) -> any SchemeHandler]
    /// The engine the page is being wired to, for what must run on its executor (``EngineExecutorHop/hop(onExecutorOf:)``).
    /// Handlers the engine keeps must not hold it strongly: that would be a cycle.
    public let engine: (any WebEngine)?
    /// What the features built so far provide (see ``PageFeature``).
    public var services = PageServices()
    /// Where the page's native responses wait for its `document.cookie`: the feature that installs the shim
    /// attaches its ``DocumentCookieDelivery``; networking that answers the page holds responses on it.
    public let cookieDelivery = CookieDeliveryGate()

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
    @EngineActor func wrappedSchemeHandlers() -> [String: any SchemeHandler] {
        var result: [String: any SchemeHandler] = [:]
        for (scheme, handler) in schemeHandlers {
            result[scheme.lowercased()] = schemeHandlerWrappers.reduce(handler) { $1(scheme, $0) }
        }
        return result
    }
}
