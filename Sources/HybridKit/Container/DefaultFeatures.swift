import Foundation

/// The features a container adds when the host listed none of their kind (see ``FeatureDefault``), decided
/// once every listed feature has shared what it serves.
///
/// Only one scheme gets them: one set of request hooks and one `document.cookie` shim per page, because two of
/// either would patch the same page APIs twice. It is the packages' scheme when packages are served, else the
/// first scheme (by name) a feature declares.
struct DefaultFeatures {
    let features: [any PageFeature]

    init(_ configuration: ContainerConfiguration, services: PageServices) {
        guard let scheme = services.packageScheme ?? services.servedSchemes.sorted().first else {
            features = []
            return
        }
        let pageURL = Self.pageURL(on: scheme, route: services.packageRoute)
        var added: [any PageFeature] = []
        if configuration.requestInterception == .automatic, services.requestScheme == nil {
            added.append(RequestInterceptionFeature(scheme: scheme, mapURL: pageURL))
        }
        if case .automatic(let jar) = configuration.documentCookies, services.documentCookieScheme == nil {
            added.append(
                DocumentCookieFeature(bridge: DocumentCookieBridge(jar: jar, scheme: scheme, pageURL: pageURL)))
        }
        features = added
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
