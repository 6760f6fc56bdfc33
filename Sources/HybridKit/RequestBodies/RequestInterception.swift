import Foundation

/// Request interception installed on one engine: the hooks in every frame and an ``InterceptingSchemeHandler``
/// around the scheme's own handler. Create it on the engine's actor, before the first load.
public final class RequestInterception: Sendable {
    public let handler: InterceptingSchemeHandler
    public let config: InterceptionConfig
    public let switches: InterceptionSwitches
    private let publisher: SwitchesPublisher

    /// - Parameters:
    ///   - engine: the page's engine, before its first load.
    ///   - scheme: the custom scheme whose pages are hooked (`hybrid`).
    ///   - inner: the handler that serves the scheme (a ``PackageSchemeHandler``, say).
    ///   - config: body limits and the strategy for each request API.
    ///   - proxy: native networking for full-proxy pages (`NativeProxy`); without it they fall back to body by id.
    ///   - switches: which hooks are on (remote configuration may change them).
    ///   - mapURL: the http(s) URL a custom-scheme URL stands for (default: the scheme swapped for https).
    ///   - bodyChannel: where the page sends large bodies with the engine's own upload (HybridNetwork's
    ///     `LoopbackBodyChannel`); nil or not listening: in slices to the scheme handler.
    @discardableResult @EngineActor
    public static func install(
        on engine: any WebEngine, scheme: String, inner: any SchemeHandler,
        config: InterceptionConfig = InterceptionConfig(), proxy: (any RequestProxying)? = nil,
        switches: InterceptionSwitches = InterceptionSwitches(), mapURL: (@Sendable (URL) -> URL?)? = nil,
        bodyChannel: (any BodyChannel)? = nil
    ) throws -> RequestInterception {
        if proxy == nil { switches.proxyEnabled = false }
        let handler = InterceptingSchemeHandler(
            wrapping: inner, store: BodyStore(limits: config.store), switches: switches, proxy: proxy,
            hop: EngineExecutorHop.hop(onExecutorOf: engine), mapURL: mapURL, config: config)
        try engine.setSchemeHandler(handler, forScheme: scheme)
        let endpoint = bodyChannel?.endpoint
        if endpoint != nil { bodyChannel?.routes.register(handler) }
        engine.addUserScript(
            try RequestHooksScript.userScript(
                config: config, schemes: [scheme], switches: switches, bodyKey: handler.bodyKey, channel: endpoint))
        return RequestInterception(
            handler: handler, config: config, switches: switches,
            publisher: SwitchesPublisher(switches: switches, engine: engine))
    }

    private init(
        handler: InterceptingSchemeHandler, config: InterceptionConfig, switches: InterceptionSwitches,
        publisher: SwitchesPublisher
    ) {
        self.handler = handler
        self.config = config
        self.switches = switches
        self.publisher = publisher
    }

    /// Turns the hooks on or off: at once for the scheme handler and the main frame's document, and for every
    /// document loaded later. From off the engine's actor, set ``InterceptionSwitches`` (published on the next
    /// hop).
    @EngineActor public func setHooksEnabled(_ enabled: Bool) {
        switches.hooksEnabled = enabled
        publisher.publish()
    }

    /// Allows or stops full proxy (pages fall back to body by id).
    @EngineActor public func setProxyEnabled(_ enabled: Bool) {
        switches.proxyEnabled = enabled
        publisher.publish()
    }
}
