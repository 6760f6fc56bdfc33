import Foundation
import HybridCookies

/// The features a container adds when the host listed none providing their services (see ``FeatureDefault``).
///
/// Only one scheme gets them: one set of request hooks and one `document.cookie` shim per page, because two of
/// either would patch the same page APIs twice. It is the packages' scheme when packages are served, else the
/// first scheme (by name) a feature serves: so they need those services, and pick the scheme when they build.
struct DefaultFeatures {
    let features: [any PageFeature]

    init(_ configuration: ContainerConfiguration, listed: [any PageFeature]) {
        let provided = Set(listed.flatMap(\.provides))
        var added: [any PageFeature] = []
        if let site = configuration.site, !provided.contains(.packageRoute) {
            var serving = PackageServing(
                store: site.packages, route: site.route, developmentOrigin: site.developmentOrigin,
                liveMainDocuments: true, httpCache: configuration.httpCache)
            serving.session = site.pagesSession
            added.append(serving)
        }
        if configuration.requestInterception == .automatic, !provided.contains(.requestHooks) {
            added.append(AutomaticRequestHooks())
        }
        if case .automatic(let jar) = configuration.documentCookies, !provided.contains(.documentCookieScheme) {
            added.append(AutomaticDocumentCookies(jar: jar))
            // A node of its own: the package network fallback needs the jar, and the shim needs the packages'
            // route to pick its scheme.
            if !provided.contains(.cookieJar) { added.append(AutomaticCookieJar(jar: jar)) }
        }
        features = added
    }

    /// The scheme the defaults serve, once the features serving schemes are built.
    static func scheme(in services: PageServices) -> String? {
        services.packageScheme ?? services.servedSchemes.sorted().first
    }

    /// The http(s) URL a page URL on `scheme` stands for: the package route's mapping, else the scheme swapped
    /// for https.
    static func pageURL(on scheme: String, route: OfflineRoute?) -> @Sendable (URL) -> URL? {
        if let route, route.scheme == scheme {
            let mapping = OfflineURLMapping(route: route)
            return { mapping.packageURL(for: $0) }
        }
        return { url in url.scheme?.lowercased() == scheme ? InterceptingSchemeHandler.swapToHTTPS(url) : nil }
    }
}

/// Request hooks for the default scheme, if any.
private struct AutomaticRequestHooks: PageFeature {
    var provides: [PageServiceID] { [.requestHooks] }
    var needs: [PageServiceID] { [.packageRoute, .servedSchemes, .hookOverrides] }

    func build(_ assembly: inout PageAssembly) throws {
        guard let scheme = DefaultFeatures.scheme(in: assembly.services) else { return }
        let pageURL = DefaultFeatures.pageURL(on: scheme, route: assembly.services.packageRoute)
        try RequestInterceptionFeature(scheme: scheme, mapURL: pageURL).build(&assembly)
    }

    func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
        services.requestHooks.map { RequestInterceptionFeature.session(switches: $0.switches, page: page) }
    }
}

/// `document.cookie` for the default scheme, if any, backed by the configuration's jar.
private struct AutomaticDocumentCookies: PageFeature {
    let jar: CookieJar
    var provides: [PageServiceID] { [.documentCookieScheme, .automaticCookieBridge] }
    var needs: [PageServiceID] { [.packageRoute, .servedSchemes] }

    func build(_ assembly: inout PageAssembly) throws {
        guard let scheme = DefaultFeatures.scheme(in: assembly.services) else { return }
        let pageURL = DefaultFeatures.pageURL(on: scheme, route: assembly.services.packageRoute)
        assembly.services[DocumentCookieSchemeKey.self] = scheme
        let bridge = DocumentCookieBridge(jar: jar, scheme: scheme, pageURL: pageURL)
        assembly.cookieDelivery.attach(bridge.delivery)
        assembly.services[AutomaticCookieBridgeKey.self] = bridge
    }

    func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
        try services[AutomaticCookieBridgeKey.self]?.install(on: page)
        return nil
    }
}

/// The configuration's jar as the page's jar.
private struct AutomaticCookieJar: PageFeature {
    let jar: CookieJar
    var provides: [PageServiceID] { [.cookieJar] }

    func build(_ assembly: inout PageAssembly) throws { assembly.services[CookieJarKey.self] = jar }

    func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
}

private enum AutomaticCookieBridgeKey: PageServiceKey { typealias Value = DocumentCookieBridge }

extension PageServiceID {
    fileprivate static let automaticCookieBridge = PageServiceID(AutomaticCookieBridgeKey.self)
}
