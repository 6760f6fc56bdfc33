#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK

/// One app opened by `hybrid run`: a container with what a shipped app gets (the bridge with ``RunModules``,
/// package serving, the default features — request-body hooks and `document.cookie` —, the navigation policy,
/// white-screen recovery) in a window with the Web Inspector on.
@GTKActor
final class RunSession {
    let container: HybridContainer
    let events: RunEvents
    let source: RunSource
    private var closeRequested = false
    private var closed = false

    init(_ source: RunSource) throws {
        var bridge = BridgeConfiguration()
        bridge.callObserver = { Terminal.bridgeCall($0) }
        // Marked in the Web Inspector's console too, where a developer looks at the page.
        let marker = UserScript(
            source: "console.warn('hybrid run: UNSIGNED DEVELOPMENT PACKAGE, served from a directory; not a release')",
            injectionTime: .documentStart, allFrames: false)
        let configuration = ContainerConfiguration(
            modules: RunModules.make(origin: source.origin, target: source.target, development: source.package != nil),
            bridge: bridge, userScripts: source.package == nil ? [] : [marker],
            features: source.serving.map { [$0] } ?? [], navigationPolicy: NavigationPolicyConfiguration())
        let factory = GTKEngineFactory(configuration: GTKWebView.Configuration(developerExtras: true))
        container = try HybridContainer(configuration: configuration, factory: factory)
        events = RunEvents()
        self.source = source
        container.navigationDelegate = events
        container.navigationPolicyHost = events
        container.recoveryDelegate = events
        if let view = container.engine as? GTKWebView {
            view.windowTitle =
                "hybrid run — \(source.target)" + (source.package == nil ? "" : " — UNSIGNED DEVELOPMENT PACKAGE")
            view.onWindowClose { [weak self] in self?.closeRequested = true }
            Terminal.line(
                view.isInspectable
                    ? "inspect the Web Inspector is on: right-click the page, Inspect Element"
                    : "inspect the Web Inspector is off")
        }
    }

    /// Loads the start page and waits for it; a main document that fails or does not finish is an error.
    func loadFirstPage(timeout: Int) async throws {
        try container.load(source.startURL)
        let deadline = ContinuousClock.now + .seconds(timeout)
        while events.firstLoad == .pending, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        switch events.firstLoad {
        case .finished: return
        case .failed(let reason): throw RunError.loadFailed(url: source.startURL.absoluteString, reason: reason)
        case .pending: throw RunError.loadTimedOut(url: source.startURL.absoluteString, seconds: timeout)
        }
    }

    func screenshot() async throws -> Data {
        guard let view = container.engine as? GTKWebView else { throw RunError.screenshotFailed("not a GTK view") }
        return try await view.snapshotPNG()
    }

    /// Runs until the window is closed, Ctrl-C (or SIGTERM), or `exitAfter` seconds have passed; reloads the
    /// page when the directory changes.
    func runUntilClosed(exitAfter: Double?, options: RunOptions) async {
        // A signal ends the run like closing the window, so the container closes and a scratch store goes.
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Task { @GTKActor [weak self] in self?.closeRequested = true } }
            source.resume()
            return source
        }
        defer { for source in signals { source.cancel() } }
        let reload: @Sendable () async -> Void = { [weak self] in await self?.reload() }
        let watcher = source.package.map { package in
            Task.detached { await Self.watch(package, options: options, reload: reload) }
        }
        defer { watcher?.cancel() }
        let deadline = exitAfter.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
        while !closeRequested {
            if let deadline, ContinuousClock.now >= deadline { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private func reload() {
        let url = container.engine.url ?? source.startURL
        Terminal.line("changed reloading \(Terminal.safe(url.absoluteString))")
        container.engine.reload()
    }

    /// Polls the directory's stamps off GTK's thread; once a change has been still for the debounce time,
    /// reads it again and reloads. A change that breaks the package (the entry page removed) is reported once
    /// and the previous files keep serving.
    private nonisolated static func watch(
        _ package: DevelopmentPackage, options: RunOptions, reload: @escaping @Sendable () async -> Void
    ) async {
        var reported: String?
        while !Task.isCancelled {
            try? await Task.sleep(for: options.pollInterval)
            guard package.hasChanged() else { continue }
            try? await Task.sleep(for: options.debounce)
            do throws(DevelopmentPackageError) {
                guard try package.refresh() else { continue }
                reported = nil
                await reload()
            } catch {
                guard reported != error.description else { continue }
                reported = error.description
                Terminal.line("error   \(Terminal.safe(error.description)); the previous files keep serving")
            }
        }
    }

    /// Closes the page and removes what the run made. Idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        container.close()
        source.discard()
    }
}
#endif
