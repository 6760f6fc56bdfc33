import Foundation
import HybridCookies
import Logging
import Metrics
import Synchronization

/// Fetches a network page's main document natively while its view starts, and hands it to the engine with its
/// real URL and origin, the way VasSonic does (see <doc:FirstScreenPrefetching>).
///
/// For pages not in a package. Make one for the origins whose pages it may fetch and give it to each container
/// with ``NetworkPagePrefetch``: the container's `load` (a pooled view's too) fetches the document itself while
/// the view starts; call ``prefetch(for:)`` earlier, on the user's tap, to start before the container exists.
///
///     let pages = try NetworkPagePrefetcher(origins: ["https://news.example"], jar: jar)
///     pages.prefetch(for: article)                       // on the tap
///     let page = try HybridContainer(
///         configuration: ContainerConfiguration(features: [NetworkPagePrefetch(pages)], documentCookies: .automatic(jar: jar)),
///         pool: pool)
///     try page.load(article)                             // shown from the native fetch, or loaded the plain way
///
/// Anything the engine's own load would do differently falls back to that load, unchanged but for time, with a
/// warning that says why (``NetworkPageFallback``).
public final class NetworkPagePrefetcher: Sendable {
    public let policy: NetworkPagePolicy
    /// The jar the documents are fetched with and whose cookies the engine must hold too (keep them in step with
    /// `EngineCookieSync`).
    public let jar: CookieJar
    let origins: Set<WebOrigin>
    let userAgent: String?
    private let cookies: JarCookieHandler
    private let makeNetwork: @Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching
    private let entries = Mutex<[NetworkDocumentFetch]>([])
    let metrics = NetworkPageMetrics()
    let logger = Logger(label: "hybrid.network-pages")

    /// The `Accept` header WebKit sends for a main document.
    static let accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    /// - Parameters:
    ///   - origins: the http(s) origins (`https://news.example`) whose pages are fetched natively; others load the
    ///     plain way.
    ///   - policy: the limits each document is held to.
    ///   - jar: the pages' cookie jar: its cookies go out with each document, and the document's `Set-Cookie`
    ///     values reach it (and the engine's store) when the document is handed over.
    ///   - userAgent: the `User-Agent` the engine sends, so the server answers the native fetch as it would answer
    ///     the engine (a container's ``ContainerConfiguration/userAgent`` wins for its loads); nil: URLSession's.
    ///   - network: makes the network a fetch uses, given the cookie handler it must use; nil: one URLSession for
    ///     all of them, so they reuse its connections.
    public init(
        origins: [String], policy: NetworkPagePolicy = NetworkPagePolicy(), jar: CookieJar, userAgent: String? = nil,
        network: (@Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching)? = nil
    ) throws(NetworkPageError) {
        guard !origins.isEmpty else { throw .noOrigins }
        var parsed: Set<WebOrigin> = []
        for text in origins {
            guard let url = URL(string: text), let origin = WebOrigin(url), url.user == nil, url.query == nil,
                url.path.isEmpty || url.path == "/"
            else { throw .invalidOrigin(text) }
            if !policy.allowsPrivateAddresses, PrefetchPlanner.isPrivate(host: origin.host) {
                throw .privateAddress(text)
            }
            parsed.insert(origin)
        }
        self.origins = parsed
        self.policy = policy
        self.jar = jar
        self.userAgent = userAgent
        cookies = JarCookieHandler(jar: jar)
        if let network {
            makeNetwork = network
        } else {
            // One session for every document: each reuses the connections earlier ones opened.
            let session = URLSessionNetworkFetcher(timeout: 30)
            makeNetwork = { session.sharingSession(cookies: $0) }
        }
    }

    /// Whether pages at `url` are fetched natively.
    public func covers(_ url: URL) -> Bool { coveredOrigin(of: url) != nil }

    private func coveredOrigin(of url: URL) -> WebOrigin? {
        guard let origin = WebOrigin(url), origins.contains(origin) else { return nil }
        return origin
    }

    /// Starts fetching the document at `url` now (on the user's tap), unless one is already in flight or waiting;
    /// the next load of `url` within ``NetworkPagePolicy/timeToLive`` is shown from it. False when `url` is not
    /// covered or a fetch for it is under way.
    @discardableResult
    public func prefetch(for url: URL) -> Bool {
        guard let origin = coveredOrigin(of: url) else { return false }
        let request = documentRequest(EngineRequest(url: url), userAgent: userAgent)
        guard waiting(for: request) == nil else { return false }
        start(request, origin: origin, early: true)
        return true
    }

    /// The fetch a load of `request` is shown from: the one a tap started, else a new one. Nil when the request
    /// is not one to fetch natively (another origin, a method other than GET, a body, a `Cookie` of its own).
    func fetch(for request: EngineRequest, userAgent: String?) -> NetworkDocumentFetch? {
        guard let origin = coveredOrigin(of: request.url), request.method.uppercased() == "GET", request.body == nil,
            request.header("Cookie") == nil
        else { return nil }
        if request.headers.isEmpty, let early = waiting(for: request), early.claim() {
            remove(early)
            return early
        }
        let fetch = start(
            documentRequest(request, userAgent: userAgent ?? self.userAgent), origin: origin, early: false)
        _ = fetch.claim()
        remove(fetch)
        return fetch
    }

    /// `request` with the headers the engine sends for a main document.
    private func documentRequest(_ request: EngineRequest, userAgent: String?) -> EngineRequest {
        var request = request
        if request.header("Accept") == nil { request.headers.append(("Accept", Self.accept)) }
        if let userAgent, request.header("User-Agent") == nil { request.headers.append(("User-Agent", userAgent)) }
        return request
    }

    @discardableResult
    private func start(_ request: EngineRequest, origin: WebOrigin, early: Bool) -> NetworkDocumentFetch {
        let fetch = NetworkDocumentFetch(
            request, origin: origin, startedEarly: early, policy: policy, network: makeNetwork, jar: cookies)
        let evicted = entries.withLock { entries -> [NetworkDocumentFetch] in
            entries.append(fetch)
            guard entries.count > policy.maximumEntries else { return [] }
            let extra = entries.count - policy.maximumEntries
            defer { entries.removeFirst(extra) }
            return Array(entries.prefix(extra))
        }
        for old in evicted {
            old.drop()
            metrics.count(.waste)
        }
        metrics.count(.started)
        fetch.start()
        return fetch
    }

    /// The unclaimed, live early fetch of `request`'s URL, expired ones dropped on the way.
    private func waiting(for request: EngineRequest) -> NetworkDocumentFetch? {
        let key = FirstScreenPrefetcher.markKey(request.url)
        let ttl = policy.timeToLive
        let (match, expired) = entries.withLock { entries -> (NetworkDocumentFetch?, [NetworkDocumentFetch]) in
            let expired = entries.filter { ContinuousClock.now - $0.started > ttl || $0.isFailed }
            entries.removeAll { entry in expired.contains { $0 === entry } }
            let match = entries.first { FirstScreenPrefetcher.markKey($0.page) == key && !$0.isClaimed }
            return (match, expired)
        }
        for entry in expired {
            entry.drop()
            metrics.count(.waste)
        }
        return match
    }

    private func remove(_ fetch: NetworkDocumentFetch) {
        entries.withLock { $0.removeAll { $0 === fetch } }
    }
}

/// Network-page outcomes as ``HybridMetrics/networkPages`` counters.
struct NetworkPageMetrics: Sendable {
    /// `process_started`: a cold view's web process started while its document was fetched.
    enum Outcome: String, CaseIterable, Sendable {
        case started, shown, fallback, waste
        case processStarted = "process_started"
    }

    private let counters: [Outcome: Counter]

    init() {
        var counters: [Outcome: Counter] = [:]
        for outcome in Outcome.allCases {
            counters[outcome] = Counter(label: HybridMetrics.networkPages, dimensions: [("outcome", outcome.rawValue)])
        }
        self.counters = counters
    }

    func count(_ outcome: Outcome) { counters[outcome]?.increment() }
}
