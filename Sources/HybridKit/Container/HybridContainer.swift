import Foundation
import Synchronization
import Logging

/// One page of a host app: configuration in, web view out.
///
/// It wires an engine (made by a ``WebEngineFactory`` or taken from a ``WebViewPool``), the bridge
/// (``HybridPage``), the page's scripts and handlers, offline packages and ``PageFeature``s, and keeps the page
/// alive through white screens (``PageRecovery``). The engine holds nothing of the container strongly: message
/// handlers go through weak proxies, the navigation delegate is weak, so dropping the container (or calling
/// ``close()``) frees everything. A pooled view goes back to its pool, which resets it.
///
/// Create, use, close and release it on the engine's actor (`EngineActor`: the main actor on Apple platforms).
@EngineActor
public final class HybridContainer {
    public let page: HybridPage
    public var engine: any WebEngine { handle.engine }
    public var bridge: BridgeEngine { page.bridge }
    /// Nil when the configuration turned recovery off.
    public let recovery: PageRecovery?
    /// Hears the page's navigations (the container sees them first).
    public weak var navigationDelegate: (any NavigationDelegate)?
    /// Hears what the navigation policy hands out (external links, new windows, dialogs, downloads).
    public var navigationPolicyHost: (any NavigationPolicyHost)? {
        get { navigationPolicy?.host }
        set {
            guard let navigationPolicy else {
                // A setter cannot throw: a host that would hear nothing is told so here, where it was set.
                if newValue != nil {
                    logger.warning(
                        "navigationPolicyHost set on a container without a navigation policy: it will hear no external links, new windows, dialogs or downloads; set ContainerConfiguration.navigationPolicy (NavigationPolicyConfiguration())"
                    )
                }
                return
            }
            navigationPolicy.host = newValue
        }
    }
    /// Nil when the configuration turned the navigation policy off.
    public let navigationPolicy: NavigationPolicyController?
    /// Hears recoveries and give-ups.
    public weak var recoveryDelegate: (any PageRecoveryDelegate)?
    /// The remote configuration version applied to the page, if any.
    public var appliedConfigVersion: UInt64? { remoteConfigStatus?.appliedVersion }
    /// Whether the view came warm from a pool.
    public let isPooled: Bool

    private let handle: EngineHandle
    private let router: Router
    private let configuration: ContainerConfiguration
    private var sessions: [any PageFeatureSession] = []
    private var remoteConfigStatus: RemoteConfigStatus?
    private var closed = false
    private let logger = Logger(label: "hybrid.container")
    private let events = PageLoadEventFanOut()
    private let pageMessages: PageMessageFanOut
    /// What ``load(_:)-(URL)`` maps to the package and lets through.
    private var packageRoute: OfflineRoute?
    private var servedSchemes: Set<String> = []
    /// First-screen prefetch, when the page has it: loads start the page's prefetches.
    private var prefetchAnswers: PrefetchAnswers?
    /// Network pages fetched natively, when the page has it: loads of their origins are shown from the fetch.
    private var networkPages: NetworkPageHandOver?

    /// A page in a new web view.
    public convenience init(configuration: ContainerConfiguration, factory: any WebEngineFactory) throws {
        let engine: any WebEngine
        do { engine = try factory.makeEngine() } catch { throw ContainerError.engine(error) }
        try self.init(
            configuration: configuration, handle: EngineHandle(engine: engine), pooled: false)
    }

    /// A page in a view the host made with its adapter's typed factory method (`WKEngineFactory.makeWKEngine()`,
    /// `GTKEngineFactory.makeGTKWebView()`), so the host holds the platform view with its own type. The container
    /// takes the view over: it closes it when it closes, and a view another container took throws
    /// ``ContainerError/engineInUse``.
    public convenience init(configuration: ContainerConfiguration, engine: any WebEngine) throws {
        try self.init(configuration: configuration, handle: EngineHandle(engine: engine), pooled: false)
    }

    /// A page of `site` in a new web view: its package served under its scheme, its address loadable, `modules`
    /// and page messages (by default) open to its pages.
    public convenience init(
        site: HybridSite, modules: [BridgeModule] = [], features: [any PageFeature] = [],
        pageMessages: BridgeAccess? = .site, factory: any WebEngineFactory
    ) throws {
        try self.init(
            configuration: ContainerConfiguration(
                site: site, modules: modules, features: features, pageMessages: pageMessages),
            factory: factory)
    }

    /// A page in a warm view from `pool` (a new one, made by the pool, when none is idle).
    public convenience init(configuration: ContainerConfiguration, pool: WebViewPool) throws {
        let warm = pool.checkout()
        let handle: EngineHandle
        if let warm {
            handle = warm
        } else {
            do { handle = try pool.makeHandle() } catch { throw ContainerError.engine(error) }
        }
        try self.init(configuration: configuration, handle: handle, pooled: warm != nil)
    }

    private init(configuration: ContainerConfiguration, handle: EngineHandle, pooled: Bool) throws {
        // Views a factory or a pool just handed out are free; a host's own may be another container's.
        guard handle.claim() else { throw ContainerError.engineInUse }
        self.handle = handle
        self.configuration = configuration
        self.isPooled = pooled
        let engine = handle.engine
        router = Router()
        guard configuration.allowsUnverifiedFrames || engine.verifiesMessageFrames else {
            Self.release(handle)
            throw ContainerError.framesUnverified
        }

        let pageMessages = PageMessageFanOut()
        self.pageMessages = pageMessages
        let pageMessageModules = configuration.pageMessages.map {
            [PageMessageFanOut.module(of: pageMessages, access: $0)]
        }
        let modules: [BridgeModule]
        do {
            modules = try Self.resolvingSite(
                configuration.modules + (pageMessageModules ?? []), site: configuration.site)
        } catch {
            Self.release(handle)
            throw error
        }
        var assembly = PageAssembly(modules: modules, userScripts: configuration.userScripts, engine: engine)
        let features: [any PageFeature]
        do {
            features = try FeatureOrder(
                configuration.features + DefaultFeatures(configuration, listed: configuration.features).features
            ).features
        } catch {
            Self.release(handle)
            throw ContainerError.features(error)
        }
        for feature in features {
            do {
                try feature.build(&assembly)
                let undeclared = assembly.services.takeWritten().subtracting(feature.provides)
                if let service = undeclared.first {
                    throw PageFeatureError.undeclaredService(
                        feature: FeatureOrder.name(of: feature), service: service.description)
                }
            } catch {
                Self.release(handle)
                throw ContainerError.feature(FeatureOrder.name(of: feature), error)
            }
        }
        // Schemes no request hooks serve read no bodies (the hooks' own wrapper decides on theirs).
        let hooked = assembly.services.requestHooks?.scheme
        assembly.schemeHandlerWrappers.append { scheme, handler in
            scheme.lowercased() == hooked ? handler : UnhookedBodyGuard(wrapping: handler, scheme: scheme.lowercased())
        }

        for script in assembly.earlyUserScripts { engine.addUserScript(script) }
        let page: HybridPage
        do {
            page = try HybridPage(engine: engine, modules: assembly.modules, configuration: configuration.bridge)
        } catch {
            for script in assembly.earlyUserScripts { engine.removeUserScript(script) }
            Self.release(handle)
            throw ContainerError.bridge(error)
        }
        self.page = page
        remoteConfigStatus = assembly.services[RemoteConfigStatusKey.self]
        packageRoute = assembly.services.packageRoute
        prefetchAnswers = assembly.services[PrefetchAnswersKey.self]
        networkPages = assembly.services[NetworkPagesKey.self].map {
            NetworkPageHandOver(page: page, prefetcher: $0)
        }
        servedSchemes = Set(assembly.schemeHandlers.keys.map { $0.lowercased() })
        for script in assembly.userScripts { engine.addUserScript(script) }
        for host in configuration.messageHandlers {
            engine.addScriptMessageHandler(
                WeakScriptMessageHandler(host.handler), name: host.name, replies: host.replies)
        }
        if let userAgent = configuration.userAgent { engine.customUserAgent = userAgent }

        recovery = configuration.recovery.map {
            PageRecovery(engine: engine, policy: $0, isVisible: configuration.isVisible)
        }
        // The policy sees navigations first and passes on what it lets through; the engine holds delegates
        // weakly, the container holds the policy.
        let served = assembly.schemeHandlers.keys.map { $0.lowercased() }
        let navigationPolicy = configuration.navigationPolicy.map { policy in
            var policy = policy
            policy.schemes.loadableSchemes.formUnion(served)
            return NavigationPolicyController(engine: engine, configuration: policy)
        }
        self.navigationPolicy = navigationPolicy
        router.container = self
        if let navigationPolicy {
            navigationPolicy.next = router
            page.delegate = navigationPolicy
            page.uiDelegate = navigationPolicy
        } else {
            page.delegate = router
        }
        let router = router
        recovery?.setDelegate(router)

        do {
            for (scheme, handler) in assembly.wrappedSchemeHandlers() { try handle.serve(scheme, with: handler) }
            for feature in features {
                do {
                    if let session = try feature.attach(to: page, services: assembly.services) {
                        sessions.append(session)
                    }
                } catch {
                    throw ContainerError.feature(FeatureOrder.name(of: feature), error)
                }
            }
        } catch let error as EngineError {
            close()
            throw ContainerError.engine(error)
        } catch {
            close()
            throw error
        }
        LiveObjects.containerCount.add(1, ordering: .relaxed)
        counted = true
    }

    private var counted = false

    deinit {
        if counted { LiveObjects.containerCount.subtract(1, ordering: .relaxed) }
        guard !closed else { return }
        // A deinitializer has no isolation on the package's oldest runtimes (`isolated deinit` needs iOS 18.4).
        let teardown = Teardown(
            networkPages: networkPages, sessions: sessions, page: page, events: events, pageMessages: pageMessages,
            recovery: recovery, handle: handle, configuration: configuration)
        if EngineActor.isOnEngineThread {
            // Checked just above: released where it is used, taken apart now, as by close().
            EngineActor.assumeIsolated { teardown.run() }
        } else {
            // Released elsewhere (its last reference was a task's or a queue's): taken apart on the engine's actor.
            Task { @EngineActor in teardown.run() }
        }
    }

    /// What ``close()`` takes apart, gathered so that a container released off the engine's actor is taken apart
    /// on it.
    private struct Teardown: Sendable {
        let networkPages: NetworkPageHandOver?
        let sessions: [any PageFeatureSession]
        let page: HybridPage
        let events: PageLoadEventFanOut
        let pageMessages: PageMessageFanOut
        let recovery: PageRecovery?
        let handle: EngineHandle
        let configuration: ContainerConfiguration

        @EngineActor func run() {
            networkPages?.close()
            for session in sessions.reversed() { session.close() }
            page.close()
            events.finish()
            pageMessages.finish()
            page.delegate = nil
            page.uiDelegate = nil
            recovery?.stop()
            let engine = handle.engine
            for host in configuration.messageHandlers { engine.removeScriptMessageHandler(name: host.name) }
            handle.clearSchemes()
            if configuration.userAgent != nil { engine.customUserAgent = nil }
            HybridContainer.release(handle)
        }
    }

    /// `modules` with ``BridgeAccess/site`` replaced by the site's page origin; throws when there is no site.
    private static func resolvingSite(_ modules: [BridgeModule], site: HybridSite?) throws -> [BridgeModule] {
        try modules.map { module in
            guard let access = module.access.resolvingSite(site?.pageOrigin) else {
                throw ContainerError.siteAccessWithoutSite(
                    module.name == PageMessageFanOut.moduleName ? "pageMessages" : module.name)
            }
            var resolved = module
            resolved.access = access
            return resolved
        }
    }

    /// A view the container will not use after all: back to its pool, or closed.
    private static func release(_ handle: EngineHandle) {
        handle.unclaim()
        if let pool = handle.pool {
            pool.giveBack(handle)
        } else {
            handle.close()
        }
    }

    // MARK: Loading

    /// Loads `request`. A URL under the package route's address (the site's `https://shop.example/…`) loads from
    /// the package, under the route's scheme; a custom scheme nothing serves throws
    /// ``EngineError/notLoadable(_:_:)`` rather than leaving the view blank.
    public func load(_ request: EngineRequest) throws(EngineError) {
        var request = request
        request.url = try loadableURL(for: request.url)
        // Before the engine starts: the prefetches run while the view loads.
        prefetchAnswers?.pageWillOpen(request.url)
        recovery?.hostWillLoad(.request(request))
        // A network page: its document is fetched natively while the view starts, then shown (or loaded plainly).
        let userAgent = configuration.userAgent
        if let networkPages, networkPages.start(request, userAgent: userAgent) { return }
        let plainLoad: @EngineActor @Sendable () throws(EngineError) -> Void = {
            [engine, request] () throws(EngineError) in
            try engine.load(request)
        }
        if deferredWhileWarmingUp(request.url, plainLoad) { return }
        try plainLoad()
    }

    /// Schemes the engine loads by itself; any other must be served by the container.
    private static let engineSchemes: Set<String> = ["http", "https", "about", "data", "blob", "file"]

    private func loadableURL(for url: URL) throws(EngineError) -> URL {
        if let route = packageRoute, OfflineURLMapping(route: route).isUnderPrefix(url),
            let custom = OfflineURLMapping(route: route).customURL(for: url)
        {
            return custom
        }
        let scheme = url.scheme?.lowercased() ?? ""
        guard Self.engineSchemes.contains(scheme) || servedSchemes.contains(scheme) else {
            let served = servedSchemes.isEmpty ? "none" : servedSchemes.sorted().joined(separator: ", ")
            throw .notLoadable(
                url.absoluteString,
                "no handler serves '\(scheme)' in this container (served: \(served)); declare a HybridSite "
                    + "(ContainerConfiguration.site) or list the feature that serves it, or load the site's https URL")
        }
        return url
    }

    public func load(_ url: URL) throws(EngineError) { try load(EngineRequest(url: url)) }

    /// The page's navigations, failures and recoveries as they happen, for `for await` (as the delegate hears
    /// them). Each call is a sequence of its own, from now on; it ends when the container closes.
    public func loadEvents() -> AsyncStream<PageLoadEvent> { events.stream() }

    /// Bytes of page messages kept for names the host does not listen to yet (for tests and diagnostics).
    var pendingPageMessageBytes: Int { pageMessages.pendingBytes }

    /// The messages pages post under `name` with `hybrid.post(name, value)`, from the pages
    /// ``ContainerConfiguration/pageMessages`` allows; a page the rule refuses gets a rejected promise, and the log
    /// says why. Messages posted before the first listener of a name are kept for it (up to 64, and 1 MB of values
    /// for all names together; a post past that is refused with `denied`); a value is at most 64 KB of JSON (a larger
    /// one is refused with `bad_arguments`); the sequence ends when the container closes. Throws when the
    /// configuration accepts no page messages.
    public func messages(_ name: String) throws(PageMessageError) -> AsyncStream<PageMessage> {
        guard configuration.pageMessages != nil else { throw .notAccepted(name) }
        return pageMessages.stream(name)
    }

    /// The next message pages post under `name` (one kept from before the call included), for a host that waits
    /// for one "done" message: throws when none comes within `timeout`, the container closes first, or the
    /// configuration accepts no page messages.
    public func nextMessage(
        _ name: String, timeout: Duration = .seconds(30)
    ) async throws(PageMessageError) -> PageMessage {
        let stream = try messages(name)
        let result = await outcome(
            of: {
                for await message in stream { return .success(message) }
                return .failure(.closed(name))
            }, within: timeout, else: { Result<PageMessage, PageMessageError>.failure(.timedOut(name, timeout)) })
        return try result.get()
    }

    /// Loads `url` and returns once the page finished loading, or throws why it did not (a failure, the
    /// container closing, or `timeout`). A load the engine replaced with another (a redirect to a page, the host's
    /// next load) waits for that one.
    public func loadAndWait(
        _ url: URL, timeout: Duration = .seconds(30)
    ) async throws {
        let stream = loadEvents()
        try load(url)
        let failure = await outcome(
            of: { () -> PageLoadFailure? in
                for await event in stream {
                    switch event {
                    case .finished: return nil
                    case .failed(let failure) where failure.kind != .cancelled: return failure
                    default: continue
                    }
                }
                return PageLoadFailure(kind: .closed, url: url, message: "the container closed while loading")
            }, within: timeout,
            else: { PageLoadFailure(kind: .timedOut, url: url, message: "not finished within \(timeout)") })
        if let failure { throw failure }
    }

    public func loadFile(_ url: URL, allowingReadAccessTo directory: URL) {
        recovery?.hostWillLoad(.file(url, readAccess: directory))
        let engine = engine
        if deferredWhileWarmingUp(url, { engine.loadFile(url, allowingReadAccessTo: directory) }) { return }
        engine.loadFile(url, allowingReadAccessTo: directory)
    }

    public func loadHTML(_ html: String, baseURL: URL?) {
        recovery?.hostWillLoad(.html(html, baseURL: baseURL))
        let engine = engine
        if deferredWhileWarmingUp(baseURL, { engine.loadHTML(html, baseURL: baseURL) }) { return }
        engine.loadHTML(html, baseURL: baseURL)
    }

    /// A load that replaces a network page's pending hand-over; while the view's blank start page still loads, it
    /// waits for that page's end (see `NetworkPageHandOver.deferWhileWarmingUp`). False: load at once.
    private func deferredWhileWarmingUp(
        _ url: URL?, _ load: @escaping @EngineActor @Sendable () throws(EngineError) -> Void
    ) -> Bool {
        networkPages?.deferWhileWarmingUp(url, load) ?? false
    }

    /// Stops the view's loading, as `engine.stopLoading()`, and drops what the container holds back: a network
    /// page's document still being fetched natively, and a load waiting for a cold view's blank start page (see
    /// <doc:FirstScreenPrefetching>). Call this rather than the engine's: a stop on the engine alone does not reach
    /// those, and they would load after it.
    public func stopLoading() {
        networkPages?.stop()
        engine.stopLoading()
    }

    // MARK: Lifecycle

    /// The host shows or hides the page. A page that died while hidden is recovered when shown.
    public func setVisible(_ visible: Bool) {
        recovery?.setVisible(visible)
    }

    /// Looks for a white screen that came without a signal (empty title, empty body); recovers when found.
    /// Hosts call it when the page comes on screen. Returns why the page was judged blank, or nil. Runs on the
    /// engine's actor, like every use of the container.
    @discardableResult
    public func checkForBlankPage() async -> String? {
        guard let recovery else { return nil }
        return await recovery.checkForBlankPage()
    }

    /// Detaches the page: features closed, bridge closed (pending calls fail), handlers removed, networking
    /// shut down. A pooled view goes back to its pool to be reset; any other view is closed. Idempotent; also
    /// done when the container is released.
    public func close() {
        guard !closed else { return }
        closed = true
        let teardown = Teardown(
            networkPages: networkPages, sessions: sessions, page: page, events: events, pageMessages: pageMessages,
            recovery: recovery, handle: handle, configuration: configuration)
        sessions.removeAll()
        teardown.run()
    }

    // MARK: Events

    fileprivate func didStart(_ url: URL?) {
        guard let url else { return }
        for session in sessions { session.mainFrameWillLoad(url) }
    }

    fileprivate func didCommit(_ url: URL?) {
        handle.noteCommitted(url)
        guard let url else { return }
        for session in sessions { session.mainFrameDidCommit(url) }
    }

    fileprivate func pageFailed(_ trigger: RecoveryTrigger) {
        for session in sessions { session.pageFailed(trigger) }
    }

    fileprivate func recovered(_ report: RecoveryReport) {
        logger.info("page recovered", metadata: ["reason": "\(report.reason)", "attempt": "\(report.attempt)"])
        do { try bridge.emit("recovered", report) } catch {
            logger.warning("could not tell the page it recovered", metadata: ["error": "\(error)"])
        }
        recoveryDelegate?.pageRecovered(report)
    }

    fileprivate func gaveUp(attempts: Int, trigger: RecoveryTrigger) {
        recoveryDelegate?.pageRecoveryGaveUp(attempts: attempts, trigger: trigger)
    }

    /// The page's navigation delegate and the recovery's delegate: holds the container weakly, so neither the
    /// page nor the recovery keeps it alive.
    private final class Router: NavigationDelegate, PageRecoveryDelegate {
        weak var container: HybridContainer?

        private var host: (any NavigationDelegate)? { container?.navigationDelegate }

        func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy {
            host?.decidePolicy(for: action) ?? .allow
        }

        func decidePolicy(for response: NavigationResponse) -> NavigationResponsePolicy {
            host?.decidePolicy(for: response) ?? (response.canShowMIMEType ? .allow : .download)
        }

        func didStartNavigation(to url: URL?) {
            container?.events.send(.started(url))
            container?.didStart(url)
            host?.didStartNavigation(to: url)
        }

        func didCommitNavigation(to url: URL?) {
            container?.events.send(.committed(url))
            container?.didCommit(url)
            host?.didCommitNavigation(to: url)
        }

        func didFinishNavigation(to url: URL?) {
            container?.events.send(.finished(url))
            container?.recovery?.loadFinished()
            host?.didFinishNavigation(to: url)
        }

        func didFailNavigation(to url: URL?, error: String) {
            container?.events.send(.failed(PageLoadFailure(url: url, engineMessage: error)))
            container?.recovery?.loadFailed()
            host?.didFailNavigation(to: url, error: error)
        }

        func webProcessDidTerminate(reason: WebProcessTerminationReason) {
            container?.events.send(.webProcessTerminated(reason))
            // With recovery on, the sessions hear it through pageDied, in order with what recovery does next.
            if container?.recovery == nil { container?.pageFailed(.processTerminated(reason)) }
            container?.recovery?.webProcessDidTerminate(reason: reason)
            host?.webProcessDidTerminate(reason: reason)
        }

        func pageDied(_ trigger: RecoveryTrigger) { container?.pageFailed(trigger) }

        func pageRecovered(_ report: RecoveryReport) {
            container?.events.send(.recovered(report))
            container?.recovered(report)
        }

        func pageRecoveryGaveUp(attempts: Int, trigger: RecoveryTrigger) {
            container?.events.send(.recoveryGaveUp(attempts: attempts))
            container?.gaveUp(attempts: attempts, trigger: trigger)
        }
    }
}
