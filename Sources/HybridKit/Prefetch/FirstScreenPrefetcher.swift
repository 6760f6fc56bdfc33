import Foundation
import HybridCookies
import Logging
import Synchronization

/// Starts the requests a site's pages declare for their first screen (see <doc:FirstScreenPrefetching>) as soon as
/// the host opens one, in parallel with the view, and keeps their responses for the page's own requests to claim.
///
/// Make one per site and give it to each container with ``FirstScreenPrefetch``: the container prefetches when
/// it loads a page; call ``prefetch(for:)`` yourself earlier (on the user's tap) to start before the container.
///
///     let prefetcher = try FirstScreenPrefetcher(site: site, declarations: declarations, jar: jar) {
///         ["user": session.userID, "locale": Locale.current.identifier]
///     }
///     let shop = try HybridContainer(site: site, features: [FirstScreenPrefetch(prefetcher)], factory: factory)
public final class FirstScreenPrefetcher: Sendable {
    /// The site whose package pages it prefetches for; nil when it prefetches for a network origin's pages
    /// (``init(networkOrigin:declarations:policy:jar:network:values:)``).
    public let site: HybridSite?
    public let policy: PrefetchPolicy
    /// The origin of the pages it answers, as the engine reports a page's security origin: the site's
    /// ``HybridSite/pageOrigin`` (`hybrid://shop.example`), or the network origin (`https://news.example`).
    public let pageOrigin: String
    /// The jar its requests send cookies from and whose changes a page answered from it sees.
    let jar: CookieJar?
    let planner: PrefetchPlanner
    private let declarations: Mutex<PrefetchDeclarations>
    private let cookies: (any HTTPCookieHandling)?
    private let values: @Sendable () -> [String: String]
    private let makeNetwork: @Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching
    private let entries = Mutex<[PrefetchEntry]>([])
    private let marks = Mutex<[URL: FirstScreenMarks]>([:])
    let metrics = PrefetchMetrics()
    private let logger = Logger(label: "hybrid.prefetch")

    /// - Parameters:
    ///   - site: the site whose pages declare prefetches; requests go to its origin only (to its development
    ///     server when it has one).
    ///   - declarations: what the pages declare; checked now against `policy`, and each request again once filled.
    ///   - policy: the limits declarations are held to.
    ///   - jar: the pages' cookie jar (the container's); nil sends no cookies.
    ///   - network: makes the network a prefetch uses, given the cookie handler it must use; nil: one URLSession
    ///     for all of them (so they reuse its connections), sending to the site's development server when it has
    ///     one. A network of the host's own sends where its requests name (the site's origin) unless it maps them
    ///     itself, as ``PackageServing/network`` does: give it the same mapping as the pages' network
    ///     (`URLSessionNetworkFetcher(cookies:sendingTo:)` takes `site.developmentOrigin`), or prefetches and the
    ///     page's own requests reach different servers.
    ///   - values: the values templates name besides `path` and `query.NAME` (the user, the locale…), read each
    ///     time a page opens.
    public convenience init(
        site: HybridSite, declarations: PrefetchDeclarations, policy: PrefetchPolicy = PrefetchPolicy(),
        jar: CookieJar?, network: (@Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching)? = nil,
        values: @escaping @Sendable () -> [String: String] = { [:] }
    ) throws(PrefetchError) {
        guard let origin = WebOrigin(site.url) else { throw .otherOrigin(template: "", site: site.address.description) }
        try self.init(
            site: site, origin: origin, pageOrigin: site.pageOrigin, declarations: declarations, policy: policy,
            jar: jar, network: network, values: values)
    }

    /// A prefetcher for pages that are not in a package: pages of `networkOrigin` the engine loads over http(s)
    /// (network pages, see ``NetworkPagePrefetcher``). Their own matching `fetch` is answered through a script
    /// message the engine vouches for (the sending frame's security origin and main-frame flag), since their
    /// requests never reach native code; give it to the container with ``FirstScreenPrefetch`` (see
    /// <doc:FirstScreenPrefetching>).
    ///
    /// - Parameters:
    ///   - networkOrigin: the pages' http(s) origin (`https://news.example`, no path, query or user); requests go
    ///     to it only.
    ///   - declarations: what the pages declare (paths on that origin); checked now against `policy`.
    ///   - policy: the limits declarations are held to; private addresses need
    ///     ``PrefetchPolicy/allowsPrivateAddresses``.
    ///   - jar: the pages' jar, kept in step with the engine's store (`EngineCookieSync`); nil sends no cookies.
    ///   - network: makes the network a prefetch uses, given the cookie handler it must use; nil: one URLSession
    ///     for all of them, so they reuse its connections.
    ///   - values: the values templates name besides `path` and `query.NAME`, read each time a page opens.
    public convenience init(
        networkOrigin: String, declarations: PrefetchDeclarations, policy: PrefetchPolicy = PrefetchPolicy(),
        jar: CookieJar?, network: (@Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching)? = nil,
        values: @escaping @Sendable () -> [String: String] = { [:] }
    ) throws(PrefetchError) {
        guard let url = URL(string: networkOrigin), let origin = WebOrigin(url), url.user == nil, url.query == nil,
            url.path.isEmpty || url.path == "/"
        else { throw .otherOrigin(template: "", site: networkOrigin) }
        if !policy.allowsPrivateAddresses, PrefetchPlanner.isPrivate(host: origin.host) {
            throw .privateAddress(host: origin.host)
        }
        try self.init(
            site: nil, origin: origin, pageOrigin: origin.description, declarations: declarations, policy: policy,
            jar: jar, network: network, values: values)
    }

    private init(
        site: HybridSite?, origin: WebOrigin, pageOrigin: String, declarations: PrefetchDeclarations,
        policy: PrefetchPolicy, jar: CookieJar?,
        network: (@Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching)?,
        values: @escaping @Sendable () -> [String: String]
    ) throws(PrefetchError) {
        planner = PrefetchPlanner(site: origin, policy: policy)
        do {
            try planner.check(declarations)
        } catch {
            logger.warning(
                "prefetch declarations refused; pages open without prefetch until they are fixed",
                metadata: ["source": "\(declarations.source.rawValue)", "error": "\(error)"])
            PrefetchMetrics().count(.refused)
            throw error
        }
        self.site = site
        self.pageOrigin = pageOrigin.lowercased()
        self.jar = jar
        self.policy = policy
        self.declarations = Mutex(declarations)
        self.values = values
        if let site {
            let mapping = OfflineURLMapping(route: site.route)
            cookies = jar.map { JarCookieHandler(jar: $0, pageURL: { mapping.packageURL(for: $0) }) }
        } else {
            cookies = jar.map { JarCookieHandler(jar: $0) }
        }
        if let network {
            makeNetwork = network
        } else {
            // One session for every prefetch: each reuses the connections earlier ones opened.
            let session = URLSessionNetworkFetcher(timeout: policy.timeout, sendingTo: site?.developmentOrigin)
            makeNetwork = { cookies in session.sharingSession(cookies: cookies) }
        }
    }

    /// Whether it answers network pages (``init(networkOrigin:declarations:policy:jar:network:values:)``)
    /// rather than a site's package pages.
    var answersNetworkPages: Bool { site == nil }

    /// Starts the prefetches declared for the page at `url` (the site's https URL or its custom-scheme one), unless
    /// the same are already in flight or waiting; returns how many it started. A request whose template cannot be
    /// filled or checked is skipped with a warning and counted as refused: the page fetches it itself.
    @discardableResult
    public func prefetch(for url: URL) -> Int {
        // `path(percentEncoded:)` keeps a trailing slash (`/news/`), which `path` drops.
        guard let page = httpURL(url) else { return 0 }
        let path = page.path(percentEncoded: false).isEmpty ? "/" : page.path(percentEncoded: false)
        let requests = declarations.withLock { $0 }.pages.filter { $0.covers(path: path) }.flatMap(\.requests)
        guard !requests.isEmpty else { return 0 }
        let supplied = values()
        var plans: [PlannedPrefetch] = []
        for request in requests {
            do {
                let plan = try planner.plan(request, page: page, values: supplied)
                // Already in flight or waiting (a tap prefetched it, or the load before this navigation did).
                guard claimable(page: page, where: { $0 == plan }) == nil, !plans.contains(plan) else { continue }
                plans.append(plan)
            } catch {
                metrics.count(.refused)
                logger.warning(
                    "prefetch refused; the page fetches it itself: fix the declaration or the values supplied",
                    metadata: ["page": "\(page.absoluteString)", "error": "\(error)"])
            }
        }
        // Marked before the first starts: a loopback answer can end it before this returns.
        let now = ContinuousClock.now
        marks.withLock { marks in
            if !plans.isEmpty || marks[Self.markKey(page)] == nil {
                marks[Self.markKey(page)] = FirstScreenMarks(open: now)
            }
        }
        for plan in plans { start(plan, page: page) }
        let started = plans.count
        return started
    }

    /// Replaces the declarations (a new package, remote configuration), after the same checks as at creation;
    /// refused ones leave the current ones in place, with a warning. Pages opened from now on use them.
    public func update(_ new: PrefetchDeclarations) throws(PrefetchError) {
        do {
            try planner.check(new)
        } catch {
            metrics.count(.refused)
            logger.warning(
                "prefetch declarations refused; the previous ones stay in use until fixed ones arrive",
                metadata: ["source": "\(new.source.rawValue)", "error": "\(error)"])
            throw error
        }
        declarations.withLock { $0 = new }
    }

    /// Takes a remote configuration's prefetch declarations, if it has any (see ``update(_:)``).
    public func apply(_ config: RemoteConfig) throws(PrefetchError) {
        guard let pages = config.prefetch else { return }
        try update(PrefetchDeclarations(pages: pages, source: .remoteConfig))
    }

    /// The http(s) URL a page URL stands for.
    func httpURL(_ url: URL) -> URL? {
        if let site, url.scheme?.lowercased() == site.route.scheme {
            return OfflineURLMapping(route: site.route).packageURL(for: url)
        }
        return WebOrigin(url) == planner.site ? url : nil
    }

    private func start(_ plan: PlannedPrefetch, page: URL) {
        let entry = PrefetchEntry(
            plan: plan, page: page, cookies: cookies, maximumBytes: policy.maximumResponseBytes)
        let evicted = entries.withLock { entries -> [PrefetchEntry] in
            entries.append(entry)
            guard entries.count > policy.maximumEntries else { return [] }
            let extra = entries.count - policy.maximumEntries
            defer { entries.removeFirst(extra) }
            return Array(entries.prefix(extra))
        }
        for old in evicted where old.drop() { metrics.count(.waste) }
        metrics.count(.started)
        let network = makeNetwork(entry.deferringCookies)
        let key = Self.markKey(page)
        let fetch = network.fetch(plan.request, followRedirects: true) { [weak self, entry] event in
            entry.receive(event)
            if case .response(let head) = event, let redirection = head.redirection, redirection.crossedOrigins {
                self?.logger.notice(
                    "prefetch not answered: a redirect took it through another origin, where the engine's own fetch would have sent other cookies; the page fetches it itself. Declare the URL the redirects end at to prefetch it",
                    metadata: ["url": "\(plan.url.absoluteString)", "final": "\(redirection.url.absoluteString)"])
            }
            switch event {
            case .finished, .failed:
                self?.noteDone(key)
                // A prefetch dropped on purpose (too large, too slow, unclaimed) ends cancelled: no news.
                if case .failed(let why) = event, entry.phase == .failed {
                    self?.logger.notice(
                        "prefetch failed; the page fetches it itself",
                        metadata: ["url": "\(plan.url.absoluteString)", "error": "\(why)"])
                }
                // Keeps the network made for this prefetch alive until its last event.
                withExtendedLifetime(network) {}
            case .response, .data: break
            }
        }
        entry.attach(fetch)
        if entry.phase == .dropped { metrics.count(.waste) }
    }

    private func noteDone(_ key: URL) {
        let pending = entries.withLock { $0.contains { Self.markKey($0.page) == key && $0.phase == .running } }
        guard !pending else { return }
        marks.withLock { marks in
            if marks[key]?.prefetchDone == nil { marks[key]?.prefetchDone = .now }
        }
    }

    /// The first unclaimed, live prefetch for `page` whose plan `matches`, expired ones dropped on the way (waste).
    private func claimable(page: URL, where matches: (PlannedPrefetch) -> Bool) -> PrefetchEntry? {
        let ttl = policy.timeToLive
        let (match, expired) = entries.withLock { entries -> (PrefetchEntry?, [PrefetchEntry]) in
            let expired = entries.filter { ContinuousClock.now - $0.started > ttl && !$0.isClaimed }
            entries.removeAll { entry in expired.contains { $0 === entry } }
            let match = entries.first { entry in
                Self.markKey(entry.page) == Self.markKey(page) && matches(entry.plan) && !entry.isClaimed
                    && (entry.phase == .running || entry.phase == .finished)
            }
            return (match, expired)
        }
        for entry in expired where entry.drop() { metrics.count(.waste) }
        return match
    }

    /// Takes the prefetch for a page at `page` whose plan `matches`, once: nil when none does (none made,
    /// expired, already taken, dropped, or made with cookies the jar no longer sends).
    func take(page: URL, where matches: (PlannedPrefetch) -> Bool) -> PrefetchEntry? {
        guard let entry = claimable(page: page, where: matches) else { return nil }
        let taken = entries.withLock { entries -> Bool in
            guard let index = entries.firstIndex(where: { $0 === entry }) else { return false }
            entries.remove(at: index)
            return true
        }
        guard taken else { return nil }
        guard entry.cookiesUnchanged() else {
            logger.notice(
                "prefetch not used: the jar's cookies for it changed since it was sent",
                metadata: ["url": "\(entry.plan.url.absoluteString)"])
            if entry.drop() { metrics.count(.waste) }
            return nil
        }
        return entry
    }

    /// Drops what was prefetched for `page` and never claimed (the page closed or moved on); counted as waste.
    func discard(for page: URL) {
        let key = Self.markKey(page)
        let gone = entries.withLock { entries -> [PrefetchEntry] in
            let gone = entries.filter { Self.markKey($0.page) == key && !$0.isClaimed }
            entries.removeAll { entry in gone.contains { $0 === entry } }
            return gone
        }
        for entry in gone where entry.drop() { metrics.count(.waste) }
    }

    /// What was prefetched for `page` and is still waiting to be claimed.
    func pending(for page: URL) -> [PlannedPrefetch] {
        let key = Self.markKey(page)
        return entries.withLock { $0.filter { Self.markKey($0.page) == key && !$0.isClaimed }.map(\.plan) }
    }

    /// The timing marks of the last open of `url` (see ``FirstScreenMarks``), nil if it declared no prefetch.
    public func marks(for url: URL) -> FirstScreenMarks? {
        guard let page = httpURL(url) else { return nil }
        return marks.withLock { $0[Self.markKey(page)] }
    }

    func mark(_ url: URL, _ update: (inout FirstScreenMarks) -> Void) {
        guard let page = httpURL(url) else { return }
        marks.withLock { marks in
            guard var mark = marks[Self.markKey(page)] else { return }
            update(&mark)
            marks[Self.markKey(page)] = mark
        }
    }

    /// Pages are told apart by path and query, not fragment.
    static func markKey(_ url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.fragment = nil
        if components?.path.isEmpty == true { components?.path = "/" }
        return components?.url ?? url
    }
}

/// When a page opened with prefetch got where, on the host's monotonic clock.
public struct FirstScreenMarks: Sendable, Equatable {
    /// The host opened the page (its prefetches started).
    public var open: ContinuousClock.Instant
    /// The main document committed in the view.
    public var viewReady: ContinuousClock.Instant?
    /// Every prefetch of the page ended (finished or failed).
    public var prefetchDone: ContinuousClock.Instant?
    /// The page said its first screen is shown (`hybridPrefetch.firstScreen()`).
    public var firstScreen: ContinuousClock.Instant?
}
