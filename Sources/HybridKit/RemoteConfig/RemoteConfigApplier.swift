import Foundation
import Logging

/// Applies a ``RemoteConfigApplication`` to one container's page (see there for what each part does).
///
/// The first configuration is applied before the first load; later ones as the store takes them, on the
/// engine's actor. Hook switches are overrides laid over the host's own (``InterceptionSwitches/Overrides``),
/// so a switch a newer configuration no longer mentions goes back to the host's value.
final class RemoteConfigApplier: PageFeatureSession {
    private let application: RemoteConfigApplication
    private weak var engine: (any WebEngine)?
    private var modules: ModuleRegistry?
    private weak var packages: PackageSchemeHandler?
    private let switches: InterceptionSwitches?
    /// The custom scheme pages are served on: degraded https prefixes also name the pages standing for them.
    private let scheme: String?
    private var installed: [String: UserScript] = [:]
    private var observation: ConfigObservation?
    private let hop: EngineHop
    private var closed = false
    /// Where the container reads the version the page runs with.
    private let status: RemoteConfigStatus?
    private var appliedVersion: UInt64? {
        didSet { status?.appliedVersion = appliedVersion }
    }
    private let logger = Logger(label: "hybrid.remote-config")

    /// Configures what the page's features shared: the package handler's degrade list, the request hooks'
    /// switches; custom-scheme page URLs stand for degraded https prefixes on the packages' (else the hooks')
    /// scheme.
    init(_ application: RemoteConfigApplication, engine: any WebEngine, services: PageServices) {
        self.application = application
        self.engine = engine
        packages = services.packageHandler
        switches = services.requestHooks?.switches
        scheme = (services.packageScheme ?? services.requestHooks?.scheme)?.lowercased()
        status = services[RemoteConfigStatusKey.self]
        hop = EngineExecutorHop.hop(onExecutorOf: engine)
    }

    /// Once the page is wired, before the first load: the named scripts as the configuration in use has them,
    /// bridge permissions, and from then on every configuration the store takes.
    func start(modules: ModuleRegistry) {
        self.modules = modules
        let current = application.store.current
        for named in application.scripts {
            let script = current.flatMap { replacement(for: named, in: $0) } ?? named.script
            engine?.addUserScript(script)
            installed[named.name] = script
        }
        if let current { apply(current) }
        let hop = self.hop
        observation = application.store.observe { [weak self] config in
            hop { [weak self] in self?.apply(config) }
        }
    }

    func close() {
        closed = true
        observation?.cancel()
        observation = nil
    }

    func apply(_ config: RemoteConfig) {
        // Hops may run out of order; the store only ever moves forward, and so does the page.
        guard !closed else { return }
        if let appliedVersion, config.version <= appliedVersion { return }
        appliedVersion = config.version
        applyDegradeList(config)
        applyHookSwitches(config)
        modules?.setAccessOverrides(
            config.bridgePermissions.mapValues { AccessOverride(origins: $0, mode: application.bridgePermissionMode) })
        replaceScripts(config)
        logger.info("remote configuration applied", metadata: ["version": "\(config.version)"])
    }

    private func applyDegradeList(_ config: RemoteConfig) {
        guard let packages else { return }
        do {
            try packages.setDegradedPrefixes(Set(config.degradedPrefixes))
        } catch {
            // The store validated the prefixes; a route that still refuses one keeps the previous list.
            logger.error("degrade list not applied", metadata: ["error": "\(error)"])
        }
    }

    private func applyHookSwitches(_ config: RemoteConfig) {
        guard let switches else { return }
        let known = Set(RequestAPI.allCases.map(\.rawValue) + ["proxy", "all"])
        for name in config.hooks.keys where !known.contains(name) {
            logger.notice("unknown hook switch in the remote configuration ignored", metadata: ["name": "\(name)"])
        }
        let overrides = Self.hookOverrides(of: config, pageScheme: scheme)
        switches.setOverrides(overrides)
        // A strategy the remote configuration turns off is a fallback the host should know it is running on.
        let off =
            (overrides.hooksEnabled == false ? ["all request hooks (bodies of custom-scheme requests are lost)"] : [])
            + (overrides.proxyEnabled == false ? ["the full proxy (pages fall back to bodies by id)"] : [])
            + RequestAPI.allCases.filter { overrides.apis[$0] == false }.map { "the \($0.rawValue) hook" }
            + (overrides.degradedPages.isEmpty
                ? [] : ["the hooks on \(config.degradedPrefixes.joined(separator: ", "))"])
        if !off.isEmpty {
            let message =
                "remote configuration \(config.version) switches off \(off.joined(separator: "; ")); pages fall back "
                + "until a configuration switches them on again"
            logger.warning("\(message)")
        }
    }

    /// The switches `config` sets; its degraded https prefixes also name the pages on `pageScheme` standing for
    /// them.
    nonisolated static func hookOverrides(of config: RemoteConfig, pageScheme: String?)
        -> InterceptionSwitches.Overrides
    {
        var overrides = InterceptionSwitches.Overrides()
        overrides.hooksEnabled = config.hooks["all"]
        overrides.proxyEnabled = config.hooks["proxy"]
        for api in RequestAPI.allCases { overrides.apis[api] = config.hooks[api.rawValue] }
        overrides.degradedPages = config.degradedPrefixes.flatMap { prefix in
            // `https://shop.example.com/legacy/` and the custom-scheme page URL standing for it.
            guard let scheme = pageScheme?.lowercased(), let colon = prefix.firstIndex(of: ":") else { return [prefix] }
            return [prefix, scheme + prefix[colon...]]
        }
        return overrides
    }

    private func replaceScripts(_ config: RemoteConfig) {
        guard let engine else { return }
        let registered = Set(application.scripts.map(\.name))
        for entry in config.scripts where !registered.contains(entry.name) {
            logger.notice(
                "the remote configuration replaces a script the app did not register; ignored",
                metadata: ["name": "\(entry.name)"])
        }
        for named in application.scripts {
            let wanted = replacement(for: named, in: config) ?? named.script
            guard let current = installed[named.name], current != wanted else { continue }
            engine.removeUserScript(current)
            engine.addUserScript(wanted)
            installed[named.name] = wanted
        }
    }

    /// The configuration's version of `named`, if it has one whose content checks out.
    private func replacement(for named: NamedUserScript, in config: RemoteConfig) -> UserScript? {
        guard let entry = config.scripts.first(where: { $0.name == named.name }) else { return nil }
        let content = entry.source.map { Data($0.utf8) } ?? application.scriptContent?(entry)
        guard let content, entry.matches(content), let source = String(data: content, encoding: .utf8) else {
            logger.error(
                "replacement script missing or not matching its SHA-256; the app's script stays",
                metadata: ["name": "\(entry.name)"])
            return nil
        }
        return UserScript(
            source: source, injectionTime: entry.injectionTime == .documentStart ? .documentStart : .documentEnd,
            allFrames: !entry.mainFrameOnly)
    }
}
