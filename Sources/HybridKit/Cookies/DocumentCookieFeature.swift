/// `document.cookie` backed by the cookie jar for a container's custom-scheme pages (the engine keeps no cookies
/// for them). Engine-store sync (``EngineCookieSync``) is app-wide, not per page: start it once at launch.
public struct DocumentCookieFeature: PageFeature {
    public let bridge: DocumentCookieBridge

    public init(bridge: DocumentCookieBridge) { self.bridge = bridge }

    public var provides: [PageServiceID] { [.documentCookieScheme, .cookieJar] }

    public func build(_ assembly: inout PageAssembly) throws {
        assembly.services[DocumentCookieSchemeKey.self] = bridge.scheme
        assembly.services[CookieJarKey.self] = bridge.jar
        assembly.cookieDelivery.attach(bridge.delivery)
    }

    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
        try bridge.install(on: page)
        return nil
    }
}
