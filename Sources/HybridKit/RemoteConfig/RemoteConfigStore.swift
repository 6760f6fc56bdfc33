import Foundation
import HybridPackages
import Logging
import Synchronization

/// The app's signed remote configuration: the last good one in memory and on disk, refreshed from the server,
/// handed to observers that apply it (degrade list to the scheme handler, hook switches to the hooks, …).
///
/// A configuration is taken only if its signature verifies with the trusted key, it is consistent and not expired,
/// and its version is higher than the one in use. Anything else — a bad signature, a replayed older version, an
/// unreachable server — leaves the last good configuration in place and is reported as a ``ConfigError``.
///
/// ```swift
/// let store = RemoteConfigStore(trustedKey: key, source: url, cache: ConfigCache(directory: dir))
/// store.loadCached()
/// let observation = store.observe { config in handler.setDegradedPrefixes(config.degradedPrefixes) }
/// _ = await store.refresh()
/// ```
public final class RemoteConfigStore: Sendable {
    private struct State {
        var current: RemoteConfig?
        var envelope: Data?
        var lastError: ConfigError?
        var observers: [UInt64: @Sendable (RemoteConfig) -> Void] = [:]
        var nextObserver: UInt64 = 0
    }

    private let trustedKey: PackageVerificationKey
    private let source: URL
    private let cache: ConfigCache
    private let fetcher: any ConfigFetching
    private let now: @Sendable () -> Date
    private let state = Mutex(State())
    /// Serialises deliveries, so observers see versions in increasing order even when refreshes race.
    private let delivery = Mutex<UInt64?>(nil)
    private let logger = Logger(label: "hybrid.config")

    public init(
        trustedKey: PackageVerificationKey, source: URL, cache: ConfigCache,
        fetcher: any ConfigFetching = URLSessionConfigFetcher(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.trustedKey = trustedKey
        self.source = source
        self.cache = cache
        self.fetcher = fetcher
        self.now = now
    }

    /// The configuration in use, nil until one was loaded or fetched.
    public var current: RemoteConfig? { state.withLock { $0.current } }
    /// Why the last load or refresh did not take a configuration (nil after a success).
    public var lastError: ConfigError? { state.withLock { $0.lastError } }

    /// Takes the cached configuration (verified again), typically at startup before the first refresh. Returns
    /// the reason when the cache is missing nothing but could not be used.
    @discardableResult
    public func loadCached() -> ConfigError? {
        do {
            guard let envelope = try cache.load() else { return nil }
            report(try take(envelope, persist: false), from: "the cache")
            return nil
        } catch {
            report(.keptLastGood(error), from: "the cache")
            return error
        }
    }

    /// Fetches the configuration from the server and takes it if it is newer and valid.
    public func refresh() async -> ConfigRefreshOutcome {
        let outcome: ConfigRefreshOutcome
        do {
            let envelope = try await fetcher.fetch(source)
            outcome = try take(envelope, persist: true)
        } catch {
            outcome = .keptLastGood(error)
        }
        return report(outcome, from: source.absoluteString)
    }

    /// Takes an envelope that arrived another way (a push, a bundled default), with the same checks as a refresh.
    public func offer(_ envelope: Data) -> ConfigRefreshOutcome {
        let outcome: ConfigRefreshOutcome
        do { outcome = try take(envelope, persist: true) } catch { outcome = .keptLastGood(error) }
        return report(outcome, from: "an offered envelope")
    }

    /// Calls `handler` with the configuration in use (at once, if there is one) and with every newer one taken.
    public func observe(_ handler: @escaping @Sendable (RemoteConfig) -> Void) -> ConfigObservation {
        let (id, current) = state.withLock { state in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = handler
            return (id, state.current)
        }
        if let current { handler(current) }
        return ConfigObservation { [weak self] in _ = self?.state.withLock { $0.observers.removeValue(forKey: id) } }
    }

    /// Logs what a load, refresh or offer did, and keeps the reason of a refusal for ``lastError``.
    @discardableResult
    private func report(_ outcome: ConfigRefreshOutcome, from origin: String) -> ConfigRefreshOutcome {
        switch outcome {
        case .updated(let version):
            logger.info("configuration taken", metadata: ["version": "\(version)", "from": "\(origin)"])
        case .unchanged(let version):
            logger.debug("configuration unchanged", metadata: ["version": "\(version)", "from": "\(origin)"])
        case .keptLastGood(let error):
            state.withLock { $0.lastError = error }
            logger.notice(
                "configuration refused; the last good one stays in use",
                metadata: ["error": "\(error)", "from": "\(origin)"])
        }
        return outcome
    }

    private func take(_ envelope: Data, persist: Bool) throws(ConfigError) -> ConfigRefreshOutcome {
        let config = try SignedConfig.open(envelope, trusting: trustedKey, now: now())
        let outcome: ConfigRefreshOutcome = try state.withLock { (state) throws(ConfigError) -> ConfigRefreshOutcome in
            if let current = state.current {
                if config.version == current.version {
                    guard config == current else { throw .versionReused(config.version) }
                    state.lastError = nil
                    return .unchanged(version: config.version)
                }
                guard config.version > current.version else {
                    throw .staleVersion(offered: config.version, current: current.version)
                }
            }
            // Cache first: a configuration that cannot be kept across a restart would silently roll back.
            if persist { try cache.save(envelope) }
            state.current = config
            state.envelope = envelope
            state.lastError = nil
            return .updated(version: config.version)
        }
        if case .updated = outcome { deliver() }
        return outcome
    }

    private func deliver() {
        delivery.withLock { delivered in
            let (config, observers) = state.withLock { ($0.current, Array($0.observers.values)) }
            guard let config, delivered.map({ config.version > $0 }) ?? true else { return }
            delivered = config.version
            for observer in observers { observer(config) }
        }
    }
}
