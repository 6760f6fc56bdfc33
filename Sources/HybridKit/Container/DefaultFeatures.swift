import Foundation
import Logging

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
        return { url in
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
                components.scheme?.lowercased() == scheme
            else { return nil }
            components.scheme = "https"
            return components.url
        }
    }
}

/// Stands in front of a custom scheme that no request hooks serve: the engine reads no request body there, and
/// a request that carried one fails with an error the page sees, logged once per scheme handler.
final class UnhookedBodyGuard: SchemeHandler {
    private let inner: any SchemeHandler
    private let scheme: String
    private let logger = Logger(label: "hybrid.container")

    static func message(scheme: String) -> String {
        "the request body was not read: the container serves '\(scheme)' without request hooks "
            + "(requestInterception: .off or another scheme hooked), and a body on a custom scheme is read only "
            + "through them (reading a Blob body crashes WebKitGTK 2.50). Turn requestInterception back on"
    }

    init(wrapping inner: any SchemeHandler, scheme: String) {
        self.inner = inner
        self.scheme = scheme
    }

    func mayReadBody(of request: EngineRequest) -> Bool { false }
    var readsBodySource: Bool { inner.readsBodySource }

    func start(_ task: any SchemeTask) {
        guard task.request.bodyWithheld else { return inner.start(task) }
        logger.warning(
            "request body refused", metadata: ["url": "\(task.request.url)", "scheme": "\(scheme)"])
        task.fail(.forbidden(Self.message(scheme: scheme)))
    }

    func stop(_ task: any SchemeTask) { inner.stop(task) }
}
