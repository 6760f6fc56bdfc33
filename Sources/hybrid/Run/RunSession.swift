import Foundation
import HybridKitGTK
import HybridPackages

/// One app opened by `hybrid run`: a container with what a shipped app gets (the bridge with ``RunModules``,
/// package serving, the default features — request-body hooks and `document.cookie` —, the navigation policy,
/// white-screen recovery) in a window with the Web Inspector on.
@GTKActor
final class RunSession {
    let container: HybridContainer
    let events: RunEvents
    let startURL: URL
    /// Set when the target is a directory: re-read when its files change.
    let package: DevelopmentPackage?
    private let network: URLSessionNetworkFetcher?
    private let temporary: URL?
    private var closeRequested = false

    private init(
        container: HybridContainer, events: RunEvents, startURL: URL, package: DevelopmentPackage?,
        network: URLSessionNetworkFetcher?, temporary: URL?
    ) {
        self.container = container
        self.events = events
        self.startURL = startURL
        self.package = package
        self.network = network
        self.temporary = temporary
    }

    static func open(_ target: RunTarget, options: RunOptions) throws -> RunSession {
        switch target {
        case .web(let url):
            return try make(startURL: url, origin: Self.origin(of: url), features: [], target: url.absoluteString)
        case .directory(let directory):
            let route = try route(options.serves)
            let package: DevelopmentPackage
            do {
                package = try DevelopmentPackage(directory: directory, serves: [options.serves], entry: options.entry)
            } catch { throw RunError.packageRefused(path: directory.path, reason: error.description) }
            Terminal.line(
                "UNSIGNED DEVELOPMENT PACKAGE  \(package.directory.path) served as \(options.serves) — not signed, "
                    + "never installable, not for release")
            for note in package.skipped { Terminal.line("skipped \(Terminal.safe(note))") }
            return try served(
                package, route: route, entry: options.entry, options: options, target: directory.path,
                temporary: nil)
        case .package(let zip):
            guard let keyPath = options.publicKey else { throw RunError.zipNeedsKey(zip.path) }
            let key: PackageVerificationKey
            do { key = try PackageVerificationKey.load(from: URL(fileURLWithPath: keyPath)) } catch {
                throw RunError.badKey(path: keyPath, reason: error.description)
            }
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-run-\(UUID().uuidString)")
            do {
                let store = try PackageStore(root: root, trustedKey: key)
                // `hybrid run` is no particular app: any container version the package asks for is accepted.
                let installed = try PackageInstaller(
                    store: store, trustedKey: key, containerVersion: SemanticVersion(major: 1 << 30, minor: 0, patch: 0)
                ).install(packageAt: zip)
                Terminal.line(
                    "package \(installed.id) \(installed.version), signed with key \(key.keyID), verified; serves "
                        + installed.manifest.serves.joined(separator: " "))
                let prefix = installed.manifest.serves[0]
                return try served(
                    store, route: try route(prefix), entry: installed.manifest.entry, options: options,
                    target: zip.path, temporary: root)
            } catch {
                try? FileManager.default.removeItem(at: root)
                if let error = error as? PackageError {
                    throw RunError.packageRefused(path: zip.path, reason: error.description)
                }
                throw error
            }
        }
    }

    /// A container serving `store` under `route`, its misses fetched through the shared jar (and sent to
    /// `--origin` when given).
    private static func served(
        _ store: any PackageSnapshotSource, route: OfflineRoute, entry: String, options: RunOptions, target: String,
        temporary: URL?
    ) throws -> RunSession {
        let mapping = OfflineURLMapping(route: route)
        guard let prefix = route.prefixes.first, let prefixURL = URL(string: prefix.description),
            let entryURL = URL(string: entry, relativeTo: prefixURL)?.absoluteURL,
            let startURL = mapping.customURL(for: entryURL)
        else { throw RunError.badPrefix("no URL for \(entry) under \(route.prefixes)") }
        var development: DevelopmentOrigin?
        if let origin = options.origin {
            guard let server = URL(string: origin), let sent = DevelopmentOrigin(sending: prefixURL, to: server) else {
                throw RunError.badOrigin(origin)
            }
            development = sent
            Terminal.line("origin  misses of \(sent.origin) go to \(sent.server)")
        }
        // The jar `document.cookie` uses too: the page and its network misses see the same cookies.
        let cookies = JarCookieHandler(jar: DocumentCookieDefault.sharedJar) { mapping.packageURL(for: $0) }
        let network = URLSessionNetworkFetcher(cookies: cookies, sendingTo: development)
        let serving = PackageServing(store: store, route: route, network: network)
        let session = try make(
            startURL: startURL, origin: "\(route.scheme)://\(prefixURL.host ?? "")\(prefixURL.port.map { ":\($0)" } ?? "")",
            features: [serving], target: target, package: store as? DevelopmentPackage, network: network,
            temporary: temporary)
        return session
    }

    private static func make(
        startURL: URL, origin: String, features: [any PageFeature], target: String,
        package: DevelopmentPackage? = nil, network: URLSessionNetworkFetcher? = nil, temporary: URL? = nil
    ) throws -> RunSession {
        var bridge = BridgeConfiguration()
        bridge.callObserver = { Terminal.bridgeCall($0) }
        let configuration = ContainerConfiguration(
            modules: RunModules.make(origin: origin, target: target, development: package != nil), bridge: bridge,
            features: features, navigationPolicy: NavigationPolicyConfiguration())
        let factory = GTKEngineFactory(configuration: GTKWebView.Configuration(developerExtras: true))
        let container = try HybridContainer(configuration: configuration, factory: factory)
        let events = RunEvents()
        container.navigationDelegate = events
        container.navigationPolicyHost = events
        container.recoveryDelegate = events
        let session = RunSession(
            container: container, events: events, startURL: startURL, package: package, network: network,
            temporary: temporary)
        if let view = container.engine as? GTKWebView {
            view.windowTitle =
                "hybrid run — \(target)" + (package == nil ? "" : " — UNSIGNED DEVELOPMENT PACKAGE")
            view.onWindowClose { [weak session] in session?.closeRequested = true }
        }
        return session
    }

    private static func route(_ prefix: String) throws(RunError) -> OfflineRoute {
        do { return try OfflineRoute(prefixes: [prefix]) } catch { throw .badPrefix(error.description) }
    }

    private static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? "https"
        let host = url.host?.lowercased() ?? ""
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    // MARK: Running

    /// Loads the start page and waits for it; a main document that fails or does not finish is an error.
    func loadFirstPage(timeout: Int) async throws {
        try container.load(startURL)
        let deadline = ContinuousClock.now + .seconds(timeout)
        while events.firstLoad == .pending, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        switch events.firstLoad {
        case .finished: return
        case .failed(let reason): throw RunError.loadFailed(url: startURL.absoluteString, reason: reason)
        case .pending: throw RunError.loadTimedOut(url: startURL.absoluteString, seconds: timeout)
        }
    }

    func screenshot() async throws -> Data {
        guard let view = container.engine as? GTKWebView else { throw RunError.screenshotFailed("not a GTK view") }
        return try await view.snapshotPNG()
    }

    /// Runs until the window is closed or `exitAfter` seconds have passed; reloads the page when the
    /// directory changes.
    func runUntilClosed(exitAfter: Double?, options: RunOptions) async {
        let watcher = package.map { package in
            Task.detached { [weak self] in await Self.watch(package, options: options) { await self?.reload() } }
        }
        defer { watcher?.cancel() }
        let deadline = exitAfter.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
        while !closeRequested {
            if let deadline, ContinuousClock.now >= deadline { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private func reload() {
        Terminal.line("changed reloading \(Terminal.safe(container.engine.url?.absoluteString ?? startURL.absoluteString))")
        container.engine.reload()
    }

    /// Polls the directory's stamps off GTK's thread; after a change has been still for the debounce time,
    /// reads it again and asks for a reload. A change that breaks the package (the entry page removed) is
    /// reported and the previous files keep serving.
    private nonisolated static func watch(
        _ package: DevelopmentPackage, options: RunOptions, reload: @escaping @Sendable () async -> Void
    ) async {
        var reported: String?
        while !Task.isCancelled {
            try? await Task.sleep(for: options.pollInterval)
            guard package.hasChanged() else { continue }
            try? await Task.sleep(for: options.debounce)
            do {
                guard try package.refresh() else { continue }
                reported = nil
                await reload()
            } catch {
                // Said once per problem, not on every poll while it lasts.
                guard reported != error.description else { continue }
                reported = error.description
                Terminal.line("error   \(Terminal.safe(error.description)); the previous files keep serving")
            }
        }
    }

    func close() {
        container.close()
        network?.shutDown()
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }
}
