import Dispatch
import Foundation
import HybridPackages
import Logging
import Synchronization

/// Serves the active packages of a `PackageStore` under a custom scheme, and everything else from the network.
///
/// `hybrid://shop.example.com/app/x.js` stands for `https://shop.example.com/app/x.js` (``OfflineURLMapping``).
/// When an active package serves that URL and has the file, the file is streamed from disk with the manifest's
/// type and SHA-256 as its ETag (conditional and single-range requests honoured). Otherwise — no package, file
/// not in the package, a method other than GET/HEAD, or a prefix on the degrade list — the real URL is fetched
/// with ``NetworkFetching`` and streamed through. Paths that try to leave a package fail as forbidden.
///
/// A main document fetched from the network is not allowed to redirect behind the engine's back: the engine would
/// show the final page under the first URL, so relative links, `location` and reloads would all be wrong. Its 3xx
/// is caught instead, the task ends and ``EngineNavigator`` loads the final URL (back on the custom scheme when
/// the route covers it); a form post answered 301, 302 or 303 too, as the GET it turns into. A post answered 307 or
/// 308 must go on with its body, which engines cannot load: it is followed natively and shows the URL it was posted
/// to. Sub-resources keep following redirects natively: their URL is never shown.
///
/// Called on the engine's actor like every ``SchemeHandler``; disk reads run on a background queue and each
/// chunk hops back with ``EngineHop``. The next chunk is read only after the previous one was handed to the
/// engine, so a large file never piles up in memory.
public nonisolated final class PackageSchemeHandler: SchemeHandler {
    public let mapping: OfflineURLMapping
    public let resolver: PackageResolver
    private let network: any NetworkFetching
    private let hop: EngineHop
    private let chunkSize: Int
    private let readQueue = DispatchQueue(label: "hybrid.offline.read", qos: .userInitiated, attributes: .concurrent)
    private let degraded = Mutex<[URLPrefix]>([])
    private let metrics = PackageRequestMetrics()
    private let logger = Logger(label: "hybrid.packages")
    // Keyed by task identity. Written on the engine's actor only, so a hop that finds its transfer here
    // knows `stop(_:)` has not been called for it.
    private let transfers = Mutex<[ObjectIdentifier: Transfer]>([:])
    private let navigate: EngineNavigator?
    // Main-frame URLs about to be requested, oldest first, with how many redirects led to each. Bounded: a noted
    // navigation the engine never requests (cancelled, served from the back-forward cache) must not pile up.
    private let mainFrameURLs = Mutex<[(url: URL, redirects: Int)]>([])

    private let liveMainDocuments: (@Sendable (URL) -> URL)?

    /// Longest chain of main-document redirects followed before the load fails (what browsers allow, roughly).
    public static let redirectLimit = 10

    /// - Parameters:
    ///   - store: the packages served; its active version of each is read per request.
    ///   - route: the scheme and the http(s) prefixes packages may serve.
    ///   - hop: runs a closure on the engine's actor; ``EngineExecutorHop/hop(onExecutorOf:)`` makes one for an
    ///     engine.
    ///   - navigate: loads a main document's redirect target; ``navigator(for:)`` makes one for an engine. Without
    ///     it, main documents follow redirects like sub-resources and keep showing the URL first asked for.
    ///   - spaFallback: serve a package's entry page for extension-less paths it has no file for.
    ///   - network: fetches what no package serves.
    ///   - chunkSize: how much of a package file is read and sent at a time.
    ///   - liveMainDocuments: when given, a main document no package serves (a miss, a degraded prefix) is loaded at
    ///     the http(s) URL this returns for it (itself, or a development server's), with that origin, instead of
    ///     from the network under the custom scheme, where it would share the package pages' origin and what
    ///     access rules grant them. Needs `navigate`.
    public init(
        store: any PackageSnapshotSource, route: OfflineRoute, hop: @escaping EngineHop,
        navigate: EngineNavigator? = nil, spaFallback: Bool = false,
        network: any NetworkFetching = URLSessionNetworkFetcher(),
        chunkSize: Int = 256 * 1024, liveMainDocuments: (@Sendable (URL) -> URL)? = nil
    ) {
        self.liveMainDocuments = liveMainDocuments
        self.navigate = navigate
        mapping = OfflineURLMapping(route: route)
        resolver = PackageResolver(store: store, spaFallback: spaFallback)
        self.network = network
        self.hop = hop
        self.chunkSize = chunkSize
    }

    /// URL prefixes that always load from the network, even when a package serves them (to take a broken
    /// package out of service without an update). Takes effect on the next request.
    public var degradedPrefixes: Set<String> { Set(degraded.withLock { $0.map(\.description) }) }

    public func setDegradedPrefixes(_ prefixes: Set<String>) throws(OfflineRouteError) {
        var parsed: [URLPrefix] = []
        for text in prefixes {
            guard let prefix = URLPrefix(text) else { throw .invalidPrefix(text) }
            parsed.append(prefix)
        }
        degraded.withLock { $0 = parsed }
    }

    /// Tells the handler the engine is loading `url` in the main frame, so a redirect of it moves the view.
    ///
    /// Call it from ``NavigationDelegate/didStartNavigation(to:)``, which engines report for the main frame only
    /// and before they request the document. Requests themselves do not say (WebKitGTK 2.50 sends no
    /// `Sec-Fetch-Dest` on custom schemes, and iframes get the same `Accept`), nor do its navigation actions
    /// (``NavigationAction/isMainFrame`` is true for iframes there); and treating an iframe's redirect as the
    /// page's would replace the page.
    public func noteMainFrameNavigation(to url: URL) {
        guard url.scheme?.lowercased() == mapping.route.scheme else { return }
        // A form the request hooks post names its body in the URL; the request reaches this handler without it.
        let url = ReservedRequest.removingBodyTag(from: url)
        // A navigation this handler started for a redirect is reported too: keep the count its note carries.
        guard !mainFrameURLs.withLock({ $0.contains { $0.url == url } }) else { return }
        note(url, redirects: 0)
    }

    private func note(_ url: URL, redirects: Int) {
        mainFrameURLs.withLock { noted in
            noted.removeAll { $0.url == url }
            noted.append((url, redirects))
            if noted.count > 16 { noted.removeFirst(noted.count - 16) }
        }
    }

    /// Whether `request` loads the main frame's document, and after how many redirects; consumes the note.
    private func mainDocumentRedirects(_ request: EngineRequest) -> Int? {
        let noted = mainFrameURLs.withLock { noted in
            noted.firstIndex { $0.url == request.url }.map { noted.remove(at: $0).redirects }
        }
        if let noted { return noted }
        // Engines that do send fetch metadata need no note; an iframe says `iframe` here.
        return request.header("Sec-Fetch-Dest")?.lowercased() == "document" ? 0 : nil
    }

    // MARK: SchemeHandler

    @EngineActor public func start(_ task: any SchemeTask) {
        guard let url = mapping.packageURL(for: task.request.url) else {
            metrics.count(.refused)
            task.fail(
                .forbidden("\(task.request.url.absoluteString) is not a '\(mapping.route.scheme)' URL with a host"))
            return
        }
        // Consumed here, whatever serves the request, so a note cannot outlive the navigation it was made for.
        let redirects = mainDocumentRedirects(task.request)
        let method = task.request.method.uppercased()
        // Packages hold static files: other methods (form posts, APIs) are the server's business.
        guard method == "GET" || method == "HEAD" else {
            metrics.count(.miss)
            fetch(url, for: task, mainDocumentAfter: redirects)
            return
        }
        guard !isDegraded(url) else {
            metrics.count(.degraded)
            if let redirects, goLive(task, url, after: redirects, because: "its prefix is degraded") { return }
            logger.debug("degraded prefix: loading from the network", metadata: ["url": "\(url.absoluteString)"])
            fetch(url, for: task, mainDocumentAfter: redirects)
            return
        }
        let resolved: ResolvedPackageFile?
        do {
            resolved = try resolver.resolve(url.absoluteString)
        } catch {
            metrics.count(.refused)
            logger.warning("refused package path", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            task.fail(.forbidden(error.description))
            return
        }
        guard let resolved else {
            metrics.count(.miss)
            if let redirects, goLive(task, url, after: redirects, because: "no package holds it") { return }
            logger.debug("package miss: loading from the network", metadata: ["url": "\(url.absoluteString)"])
            fetch(url, for: task, mainDocumentAfter: redirects)
            return
        }
        metrics.count(.hit)
        serve(resolved, to: task, headOnly: method == "HEAD")
    }

    /// Requests go to the network with their body as it arrives when the fetcher streams it.
    public var readsBodySource: Bool { network.readsBodySource }

    @EngineActor public func stop(_ task: any SchemeTask) {
        transfers.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }?.cancel()
    }

    // MARK: Package files

    @EngineActor private func serve(_ file: ResolvedPackageFile, to task: any SchemeTask, headOnly: Bool) {
        let plan = PackageResponsePlan(entry: file.entry, request: task.request)
        guard let range = plan.body, !headOnly else {
            task.respond(plan.response)
            task.finish()
            return
        }
        let transfer = register(task)
        let chunkSize = self.chunkSize
        readQueue.async { [self] in
            let reader: FileChunkReader
            do {
                reader = try FileChunkReader(url: file.fileURL, range: range, chunkSize: chunkSize)
            } catch {
                end(task, transfer, .failed(Self.damaged(file, error)))
                return
            }
            hop { [self] in
                guard isActive(task, transfer) else { return }
                task.respond(plan.response)
                readNext(reader, file, task, transfer)
            }
        }
    }

    /// Reads one chunk on the read queue, hands it to the task on the engine's actor, then schedules the next.
    private func readNext(
        _ reader: FileChunkReader, _ file: ResolvedPackageFile, _ task: any SchemeTask, _ transfer: Transfer
    ) {
        readQueue.async { [self] in
            guard !transfer.isCancelled else { return }
            let chunk: Data
            do {
                chunk = try reader.next()
            } catch {
                end(task, transfer, .failed(Self.damaged(file, error)))
                return
            }
            hop { [self] in
                guard isActive(task, transfer) else { return }
                task.send(chunk)
                if reader.isDone {
                    unregister(task)
                    task.finish()
                } else {
                    readNext(reader, file, task, transfer)
                }
            }
        }
    }

    private static func damaged(_ file: ResolvedPackageFile, _ error: any Error) -> String {
        "\(file.package.id) \(file.package.version): cannot read \(file.entry.path) (\(error)); "
            + "the store is damaged: reopen the PackageStore to repair it, or reinstall the package"
    }

    // MARK: Network

    private func isDegraded(_ url: URL) -> Bool {
        guard let asked = URLPrefix(url.absoluteString) else { return false }
        return degraded.withLock { prefixes in
            prefixes.contains { $0.origin == asked.origin && asked.path.hasPrefix($0.path) }
        }
    }

    /// - Parameter redirects: for a main document, how many redirects led to it; nil for anything else.
    @EngineActor private func fetch(_ url: URL, for task: any SchemeTask, mainDocumentAfter redirects: Int?) {
        // Only origins the route names: anything else would let pages use the app as an open proxy
        // (loopback and private hosts included) without CORS.
        guard mapping.isRouted(url) else {
            metrics.count(.refused)
            task.fail(
                .forbidden(
                    "\(url.absoluteString) is not under an origin of the offline route; add its prefix to "
                        + "OfflineRoute.prefixes or reference it with an absolute http(s) URL"))
            return
        }
        var request = task.request
        request.url = url
        // The server sees the page it stands for, not the custom scheme.
        request.headers = request.headers.map { header in
            guard header.name.caseInsensitiveCompare("Referer") == .orderedSame,
                let referer = URL(string: header.value), let mapped = mapping.packageURL(for: referer)
            else { return header }
            return (header.name, mapped.absoluteString)
        }
        let mode = (task as? any RedirectModeCarrying)?.redirectMode ?? .follow
        send(request, for: task, mainDocumentAfter: navigate != nil ? redirects : nil, mode: mode)
    }

    /// Fetches `request` for `task`; a main document's 3xx (`redirects` set) comes back to ``deliver`` unfollowed.
    private func send(
        _ request: EngineRequest, for task: any SchemeTask, mainDocumentAfter redirects: Int?,
        mode: ProxiedRequest.RedirectMode
    ) {
        let transfer = register(task)
        let fetch = network.fetch(request, followRedirects: redirects == nil && mode == .follow) { [weak self] event in
            transfer.enqueue(event)
            self?.hop { [weak self] in
                self?.deliver(
                    transfer.drain(), to: task, transfer, mainDocument: redirects.map { (request, $0) },
                    refusesRedirects: mode == .error)
            }
        }
        transfer.attach(fetch)
    }

    /// Passes network events to the task, on the engine's actor, until the transfer ends.
    /// - Parameter mainDocument: the request sent and the redirects that led to it, for a main document.
    @EngineActor private func deliver(
        _ events: [NetworkFetchEvent], to task: any SchemeTask, _ transfer: Transfer,
        mainDocument: (request: EngineRequest, redirects: Int)?, refusesRedirects: Bool
    ) {
        for event in events {
            guard isActive(task, transfer) else { return }
            switch event {
            case .response(var response):
                if let mainDocument, let target = redirectTarget(of: response, from: mainDocument.request.url) {
                    if let resent = Self.resent(mainDocument.request, after: response) {
                        // A form post answered 307/308 goes on with its body, which engines cannot load: natively,
                        // and the page shows the URL it was posted to.
                        unregister(task)
                        transfer.cancel()
                        send(resent, for: task, mainDocumentAfter: nil, mode: .follow)
                        return
                    }
                    // A GET, or a post that a 301/302/303 turns into one: the engine loads it.
                    redirect(task, transfer, to: target, after: mainDocument.redirects)
                    return
                }
                if refusesRedirects, Self.isRedirect(response) {
                    unregister(task)
                    transfer.cancel()
                    task.fail(
                        .failed(
                            "\(task.request.url.absoluteString) answered \(response.statusCode) and the request's "
                                + "redirect mode is 'error'"))
                    return
                }
                // The page knows the final URL on the custom scheme when the route covers it, as it asked.
                if let final = response.redirection?.url, mapping.isRouted(final),
                    let custom = mapping.customURL(for: final)
                {
                    response.redirection?.url = custom
                }
                task.respond(response)
            case .data(let data): task.send(data)
            case .finished:
                unregister(task)
                task.finish()
            case .failed(let message):
                unregister(task)
                // The page sees a network error; the host must not have to guess why a resource is missing.
                logger.warning(
                    "package miss failed on the network too: the page gets a network error; add the file to the package or make the network reachable",
                    metadata: ["url": "\(task.request.url.absoluteString)", "error": "\(message)"])
                task.fail(.failed(message))
            }
        }
    }

    /// Moves the view to `url` itself (its own origin) when main documents load live; false when they do not.
    @EngineActor private func goLive(_ task: any SchemeTask, _ url: URL, after redirects: Int, because reason: String)
        -> Bool
    {
        guard let live = liveMainDocuments?(url), let navigate, redirects < Self.redirectLimit else { return false }
        logger.notice(
            "page loaded from the network at its own origin, with none of the package pages' access: \(reason)",
            metadata: ["url": "\(live.absoluteString)"])
        navigate(live)
        task.fail(.failed("\(task.request.url.absoluteString) loads from the network as \(live.absoluteString)"))
        return true
    }

    // MARK: Main-document redirects

    private static func isRedirect(_ response: SchemeResponse) -> Bool {
        RedirectRule.redirectStatuses.contains(response.statusCode)
            && location(of: response) != nil
    }

    private static func location(of response: SchemeResponse) -> String? {
        response.headers.first { $0.key.caseInsensitiveCompare("Location") == .orderedSame }?.value
    }

    /// The request a redirect of `request` sends when it keeps a body (a post answered 307 or 308), else nil.
    private static func resent(_ request: EngineRequest, after response: SchemeResponse) -> EngineRequest? {
        guard response.statusCode == 307 || response.statusCode == 308,
            request.method.uppercased() != "GET", request.method.uppercased() != "HEAD",
            let location = Self.location(of: response),
            let next = try? RedirectRule.next(
                after: RedirectHop(url: request.url, method: request.method, headers: request.headers),
                status: response.statusCode, location: location)
        else { return nil }
        var resent = request
        resent.url = next.url
        resent.headers = next.headers
        return resent
    }

    /// Where a 3xx sends the page: back on the custom scheme when the route covers the target's origin (so it is
    /// served from a package when one has it), else the http(s) URL itself, which the engine loads natively.
    private func redirectTarget(of response: SchemeResponse, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
            let location = Self.location(of: response),
            let absolute = URL(string: location, relativeTo: url)?.absoluteURL,
            let scheme = absolute.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }  // Not a redirect the page could follow: shown as the server sent it.
        return mapping.isRouted(absolute) ? mapping.customURL(for: absolute) : absolute
    }

    /// Ends the task and loads `target` in its place.
    ///
    /// The task fails rather than answering with a stub page: a failed provisional load leaves no history entry
    /// (a stub would commit one, and going back to it would redirect again) and shows nothing. The navigation
    /// starts first, so the engine cancels this load as superseded and never gets to show an error page for it;
    /// the failure is ignored then, and only matters if the navigation could not start.
    @EngineActor private func redirect(
        _ task: any SchemeTask, _ transfer: Transfer, to target: URL, after redirects: Int
    ) {
        unregister(task)
        transfer.cancel()
        guard redirects < Self.redirectLimit, let navigate else {
            task.fail(
                .failed(
                    MainDocumentRedirectError.tooManyRedirects(url: task.request.url, limit: Self.redirectLimit)
                        .description))
            return
        }
        if target.scheme?.lowercased() == mapping.route.scheme { note(target, redirects: redirects + 1) }
        metrics.count(.redirected)
        logger.debug(
            "main document redirected",
            metadata: ["from": "\(task.request.url.absoluteString)", "to": "\(target.absoluteString)"])
        navigate(target)
        task.fail(.failed("\(task.request.url.absoluteString) redirected to \(target.absoluteString)"))
    }

    // MARK: Transfers

    private func register(_ task: any SchemeTask) -> Transfer {
        let transfer = Transfer()
        transfers.withLock { $0[ObjectIdentifier(task)] = transfer }
        return transfer
    }

    private func unregister(_ task: any SchemeTask) {
        _ = transfers.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
    }

    /// Whether `transfer` is still the task's live transfer. Checked on the engine's actor before every call
    /// to the task, so nothing reaches it after `stop(_:)`.
    private func isActive(_ task: any SchemeTask, _ transfer: Transfer) -> Bool {
        transfers.withLock { $0[ObjectIdentifier(task)] } === transfer && !transfer.isCancelled
    }

    private func end(_ task: any SchemeTask, _ transfer: Transfer, _ error: SchemeTaskError) {
        hop { [self] in
            guard isActive(task, transfer) else { return }
            unregister(task)
            task.fail(error)
        }
    }
}
