import Synchronization

/// Run-time switches native can flip (a remote config, a kill switch). The scheme handler reads them per
/// request; pages get them through a ``SwitchesPublisher`` (``RequestInterception`` and the container's feature
/// keep one), at once in the main frame and for every document loaded later.
public final class InterceptionSwitches: Sendable {
    /// The switches' values, changed together with ``update(_:)``.
    public struct Settings: Sendable, Equatable {
        /// Off: pages send requests to the engine unhooked, and the reserved paths refuse new uploads.
        public var hooksEnabled = true
        /// Off: full-proxy pages fall back to body-by-id, and the proxy path refuses requests.
        public var proxyEnabled = true
        /// APIs left unhooked (their requests go to the engine as the page made them).
        public var disabledAPIs: Set<RequestAPI> = []
        /// Page URL prefixes never hooked, added at run time to the configuration's own degrade list.
        public var degradedPages: [String] = []
        /// Body channel endpoints that stopped (the latest few): pages made for one send their bodies in slices,
        /// since another process may listen on its port now. Set by the channel when it stops.
        public var closedBodyChannels: [String] = []

        public init() {}
    }

    /// What a remote configuration says, laid over the host's own settings: nil or absent keeps the host's.
    public struct Overrides: Sendable, Equatable {
        public var hooksEnabled: Bool?
        public var proxyEnabled: Bool?
        public var apis: [RequestAPI: Bool] = [:]
        /// Added to the host's ``Settings/degradedPages``.
        public var degradedPages: [String] = []

        public init() {}

        func applied(to host: Settings) -> Settings {
            var result = host
            result.hooksEnabled = hooksEnabled ?? host.hooksEnabled
            result.proxyEnabled = proxyEnabled ?? host.proxyEnabled
            for (api, on) in apis {
                if on { result.disabledAPIs.remove(api) } else { result.disabledAPIs.insert(api) }
            }
            result.degradedPages += degradedPages
            return result
        }
    }

    private struct State {
        var settings = Settings()
        var overrides = Overrides()
        var effective: Settings { overrides.applied(to: settings) }
        var observers: [Int: @Sendable (Settings) -> Void] = [:]
        var nextObserver = 0
    }

    private let state = Mutex(State())

    public init(hooksEnabled: Bool = true, proxyEnabled: Bool = true) {
        state.withLock {
            $0.settings.hooksEnabled = hooksEnabled
            $0.settings.proxyEnabled = proxyEnabled
        }
    }

    /// The host's own settings.
    public var settings: Settings { state.withLock { $0.settings } }
    /// The host's settings with the overrides laid over them: what pages and the scheme handler follow.
    public var effective: Settings { state.withLock { $0.effective } }
    public var overrides: Overrides { state.withLock { $0.overrides } }

    /// Effective value (see ``effective``); setting it sets the host's.
    public var hooksEnabled: Bool {
        get { effective.hooksEnabled }
        set { update { $0.hooksEnabled = newValue } }
    }

    /// Effective value (see ``effective``); setting it sets the host's.
    public var proxyEnabled: Bool {
        get { effective.proxyEnabled }
        set { update { $0.proxyEnabled = newValue } }
    }

    public func isEnabled(_ api: RequestAPI) -> Bool { !effective.disabledAPIs.contains(api) }

    /// Changes several of the host's switches at once.
    public func update(_ change: (inout Settings) -> Void) {
        mutate { change(&$0.settings) }
    }

    /// Replaces the overrides (a remote configuration's, every time it changes).
    public func setOverrides(_ overrides: Overrides) {
        mutate { $0.overrides = overrides }
    }

    /// Observers hear about a change once, after it, if the effective settings changed.
    private func mutate(_ change: (inout State) -> Void) {
        let (changed, observers) = state.withLock { state in
            let before = state.effective
            change(&state)
            let after = state.effective
            return (after == before ? nil : after, Array(state.observers.values))
        }
        guard let changed else { return }
        for observer in observers { observer(changed) }
    }

    /// Calls `handler` with the effective settings after every change, on the thread that made it, until the observation is cancelled.
    public func observe(_ handler: @escaping @Sendable (Settings) -> Void) -> SwitchesObservation {
        let id = state.withLock { state in
            defer { state.nextObserver += 1 }
            state.observers[state.nextObserver] = handler
            return state.nextObserver
        }
        return SwitchesObservation { [weak self] in _ = self?.state.withLock { $0.observers.removeValue(forKey: id) } }
    }
}

/// Keeps an observer of ``InterceptionSwitches`` registered until `cancel()`.
public struct SwitchesObservation: Sendable {
    let cancelAction: @Sendable () -> Void
    public func cancel() { cancelAction() }
}
