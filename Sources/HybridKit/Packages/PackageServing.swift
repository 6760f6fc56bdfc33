import Foundation
import HybridPackages
import Synchronization

/// Offline packages for a page, as a ``PageFeature``: which store, under which scheme and prefixes.
///
/// The store is usually a `PackageStore`; `hybrid run` gives a `DevelopmentPackage`, a directory served as
/// it is.
///
/// It serves the route's scheme with a ``PackageSchemeHandler`` (package files, misses from the network) and
/// tells the handler which loads are main documents, so a redirect moves the view.
public struct PackageServing: PageFeature {
    public var store: any PackageSnapshotSource
    public var route: OfflineRoute
    public var spaFallback: Bool
    /// Main documents follow redirects by moving the view to the final URL (see ``PackageSchemeHandler``).
    public var movesMainDocumentOnRedirect: Bool
    /// The network behind package misses. Nil: each page gets a URLSession fetcher of its own, whose fetches end
    /// when the page closes. It keeps its cookies in the page's `document.cookie` jar (so a session cookie an API
    /// response sets is sent with the next request, and a visible one shows in `document.cookie`) and sends the
    /// route's requests to ``developmentOrigin``'s server. The pages built from one `PackageServing` (and a
    /// ``HybridSite``'s pages) share one URLSession, so each reuses the connections earlier pages opened.
    public var network: (any NetworkFetching)?
    /// Where the route's origin is served during development (a dev or staging server, a loopback test
    /// server): requests go there while the page, the jar and `document.cookie` keep the route's origin. Used
    /// only when ``network`` is nil (a host's own fetcher takes it in
    /// ``URLSessionNetworkFetcher/init(timeout:cookies:sendingTo:)``).
    public var developmentOrigin: DevelopmentOrigin?
    /// Main documents no package serves load at their own http(s) URL, not under the custom scheme with the
    /// package pages' origin (see ``PackageSchemeHandler``). On for a ``HybridSite``'s packages, so its access
    /// rules never cover unsigned pages from the network.
    public var liveMainDocuments: Bool
    /// The session pages' own fetchers share when ``network`` is nil: a site's, else one this value makes on
    /// its first page (copies share it).
    var session = PagesSession()
    /// The app's HTTP cache for what the package lacks (``HTTPResponseCache``); nil: nothing is cached.
    public var httpCache: HTTPResponseCache?

    public init(
        store: any PackageSnapshotSource, route: OfflineRoute, spaFallback: Bool = false,
        movesMainDocumentOnRedirect: Bool = true, network: (any NetworkFetching)? = nil,
        developmentOrigin: DevelopmentOrigin? = nil, liveMainDocuments: Bool = false,
        httpCache: HTTPResponseCache? = nil
    ) {
        self.httpCache = httpCache
        self.liveMainDocuments = liveMainDocuments
        self.store = store
        self.route = route
        self.spaFallback = spaFallback
        self.movesMainDocumentOnRedirect = movesMainDocumentOnRedirect
        self.network = network
        self.developmentOrigin = developmentOrigin
    }

    public var provides: [PageServiceID] { [.packageRoute, .servedSchemes, .packageHandler, .ownedPackageNetwork] }
    /// Package misses fetched from the network keep their cookies in the page's jar.
    /// First-screen prefetch, when listed, answers the page's requests before they reach the network.
    public var needs: [PageServiceID] { [.cookieJar, .prefetchAnswers] }

    public func build(_ assembly: inout PageAssembly) throws {
        guard let engine = assembly.engine else { throw PageFeatureError.noEngine("offline packages") }
        assembly.services[PackageRouteKey.self] = route
        assembly.services[ServedSchemesKey.self, default: []].insert(route.scheme)
        let mapping = OfflineURLMapping(route: route)
        let cookies = assembly.services.cookieJar.map { jar in
            JarCookieHandler(jar: jar, pageURL: { mapping.packageURL(for: $0) })
        }
        let owned =
            network == nil
            ? session.fetcher(sendingTo: developmentOrigin).sharingSession(cookies: cookies) : nil
        let fetcher: any NetworkFetching = network ?? owned ?? URLSessionNetworkFetcher()
        let base =
            httpCache.map { CachingNetworkFetcher(base: fetcher, cache: $0, cookies: cookies) as any NetworkFetching }
            ?? fetcher
        let answered = assembly.services[PrefetchAnswersKey.self].map {
            PrefetchAnsweringFetcher(base: base, answers: $0) as any NetworkFetching
        }
        let handler = PackageSchemeHandler(
            store: store, route: route, hop: EngineExecutorHop.hop(onExecutorOf: engine),
            navigate: movesMainDocumentOnRedirect ? PackageSchemeHandler.navigator(for: engine) : nil,
            spaFallback: spaFallback,
            network: CookieOrderedFetcher(base: answered ?? base, gate: assembly.cookieDelivery),
            liveMainDocuments: liveMainDocuments ? liveURL : nil)
        assembly.schemeHandlers[route.scheme] = handler
        assembly.services[PackageHandlerKey.self] = handler
        assembly.services[OwnedPackageNetworkKey.self] = owned
    }

    /// Where a main document the package lacks loads live: its own URL, or the development server's.
    private var liveURL: @Sendable (URL) -> URL {
        { [developmentOrigin] url in developmentOrigin?.outbound(url) ?? url }
    }

    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
        guard let handler = services.packageHandler else { return nil }
        return PackageServingSession(handler: handler, ownedNetwork: services[OwnedPackageNetworkKey.self])
    }
}

/// The URLSession pages' own fetchers share: made on first use for the development origin asked for, and made
/// again if a later page asks for another (``PackageServing/developmentOrigin`` is settable).
final class PagesSession: Sendable {
    private let made = Mutex<(origin: DevelopmentOrigin?, fetcher: URLSessionNetworkFetcher)?>(nil)

    func fetcher(sendingTo origin: DevelopmentOrigin?) -> URLSessionNetworkFetcher {
        made.withLock { made in
            if let made, made.origin == origin { return made.fetcher }
            let fetcher = URLSessionNetworkFetcher(sendingTo: origin)
            made = (origin, fetcher)
            return fetcher
        }
    }
}

/// The network session the package handler owns, when the host gave it none: shut down with the page.
enum OwnedPackageNetworkKey: PageServiceKey { typealias Value = URLSessionNetworkFetcher }

extension PageServiceID {
    static let ownedPackageNetwork = PageServiceID(OwnedPackageNetworkKey.self)
}

/// One page's package serving: hears main-frame loads for the handler, ends its own network session.
private final class PackageServingSession: PageFeatureSession {
    let handler: PackageSchemeHandler
    let ownedNetwork: URLSessionNetworkFetcher?

    init(handler: PackageSchemeHandler, ownedNetwork: URLSessionNetworkFetcher?) {
        self.handler = handler
        self.ownedNetwork = ownedNetwork
    }

    func mainFrameWillLoad(_ url: URL) { handler.noteMainFrameNavigation(to: url) }

    func close() { ownedNetwork?.shutDown() }
}
