import Foundation

/// Request-body hooks for a container's pages: the hooks script in every frame and an
/// ``InterceptingSchemeHandler`` in front of whatever serves `scheme` (usually the package handler), so bodies
/// the engine would lose travel by id, and full-proxy pages go through `proxy`.
public struct RequestInterceptionFeature: PageFeature {
    public var scheme: String
    public var config: InterceptionConfig
    /// Native networking for full-proxy pages (`NativeProxy`, with the cookie jar's handler); nil: body by id only.
    public var proxy: (any RequestProxying)?
    /// Shared with the host, which may flip them at run time.
    public var switches: InterceptionSwitches
    /// The http(s) URL a custom-scheme URL stands for (`OfflineURLMapping.packageURL(for:)` of the package
    /// route); nil: the scheme swapped for https.
    public var mapURL: (@Sendable (URL) -> URL?)?
    /// Where pages send large bodies with the engine's own upload (HybridNetwork's `LoopbackBodyChannel`, one for
    /// the container or pool); nil, or not listening when a page is made: bodies go up in slices.
    public var bodyChannel: (any BodyChannel)?

    public init(
        scheme: String = "hybrid", config: InterceptionConfig = InterceptionConfig(),
        proxy: (any RequestProxying)? = nil, switches: InterceptionSwitches = InterceptionSwitches(),
        mapURL: (@Sendable (URL) -> URL?)? = nil, bodyChannel: (any BodyChannel)? = nil
    ) {
        self.mapURL = mapURL
        self.bodyChannel = bodyChannel
        self.scheme = scheme.lowercased()
        self.config = config
        self.proxy = proxy
        self.switches = switches
    }

    public var provides: [PageServiceID] { [.requestHooks] }
    /// The switches are the host's; a remote configuration's overrides are laid over them before the hooks are
    /// baked, and its degraded pages are named on the packages' scheme.
    public var needs: [PageServiceID] { [.hookOverrides, .packageRoute] }

    public func build(_ assembly: inout PageAssembly) throws {
        guard let engine = assembly.engine else { throw PageFeatureError.noEngine("request interception") }
        assembly.services[RequestHooksKey.self] = RequestHooksKey.Value(scheme: scheme, switches: switches)
        if let overrides = assembly.services[HookOverridesKey.self]?(assembly.services.packageScheme ?? scheme) {
            switches.setOverrides(overrides)
        }
        if proxy == nil { switches.proxyEnabled = false }
        // One key per page: the hooks put it on the bodies they vouch for, the handler reads only those.
        let bodyKey = BodyStore.randomID()
        // Read once: the hooks and the registration must agree on whether this page uses the channel.
        let endpoint = bodyChannel?.endpoint
        let channel = endpoint == nil ? nil : bodyChannel
        assembly.userScripts.append(
            try RequestHooksScript.userScript(
                config: config, schemes: [scheme], switches: switches, bodyKey: bodyKey, channel: endpoint))
        let hop = EngineExecutorHop.hop(onExecutorOf: engine)
        // Proxied responses reach the page once its document.cookie shows what they set.
        let ordered = proxy.map { CookieOrderedProxy(base: $0, gate: assembly.cookieDelivery) as any RequestProxying }
        let (scheme, config, proxy, switches, mapURL) = (scheme, config, ordered, switches, mapURL)
        assembly.schemeHandlerWrappers.append { served, handler in
            guard served.lowercased() == scheme else { return handler }
            let intercepting = InterceptingSchemeHandler(
                wrapping: handler, store: BodyStore(limits: config.store), switches: switches, proxy: proxy, hop: hop,
                mapURL: mapURL, bodyKey: bodyKey, config: config)
            channel?.routes.register(intercepting)
            return intercepting
        }
    }

    /// Keeps the page in step with ``switches`` while it lives.
    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
        Self.session(switches: switches, page: page)
    }

    @EngineActor static func session(switches: InterceptionSwitches, page: HybridPage) -> any PageFeatureSession {
        SwitchesSession(publisher: SwitchesPublisher(switches: switches, engine: page.engine))
    }
}

private final class SwitchesSession: PageFeatureSession {
    let publisher: SwitchesPublisher
    init(publisher: SwitchesPublisher) { self.publisher = publisher }
    func close() { publisher.cancel() }
}
