import Foundation

/// The remote configuration document (the signed payload; see docs/remote-config.md). Engine-free values only:
/// the host applies them to pages through a ``RemoteConfigStore`` observer.
public struct RemoteConfig: Sendable, Equatable, Codable {
    /// Increases with every publication; a configuration is taken only if its version is higher than the one in use.
    public var version: UInt64
    public var issuedAt: Date?
    /// After this moment the document is refused (a stolen old configuration cannot be replayed forever).
    public var expiresAt: Date?
    /// URL prefixes never hooked and always loaded from the network (never from packages).
    public var degradedPrefixes: [String]
    /// Hook switches by name ("xhr", "fetch", "sendBeacon", "form", …); names not listed keep the app's default.
    public var hooks: [String: Bool]
    /// Bridge module name → origins allowed to call it (e.g. "https://shop.example.com").
    public var bridgePermissions: [String: [String]]
    /// User scripts replaced by name.
    public var scripts: [ReplacementScript]
    /// First-screen prefetch declarations replacing the app's (``FirstScreenPrefetcher/apply(_:)``); nil leaves
    /// them as they are. Untrusted like any declaration: checked against the prefetcher's ``PrefetchPolicy``.
    public var prefetch: [PagePrefetch]?

    public init(
        version: UInt64, issuedAt: Date? = nil, expiresAt: Date? = nil, degradedPrefixes: [String] = [],
        hooks: [String: Bool] = [:], bridgePermissions: [String: [String]] = [:], scripts: [ReplacementScript] = [],
        prefetch: [PagePrefetch]? = nil
    ) {
        self.prefetch = prefetch
        self.version = version
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.degradedPrefixes = degradedPrefixes
        self.hooks = hooks
        self.bridgePermissions = bridgePermissions
        self.scripts = scripts
    }

    enum CodingKeys: String, CodingKey {
        case version, issuedAt, expiresAt, degradedPrefixes, hooks, bridgePermissions, scripts, prefetch
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(UInt64.self, forKey: .version)
        issuedAt = try container.decodeIfPresent(Date.self, forKey: .issuedAt)
        expiresAt = try container.decodeIfPresent(Date.self, forKey: .expiresAt)
        degradedPrefixes = try container.decodeIfPresent([String].self, forKey: .degradedPrefixes) ?? []
        hooks = try container.decodeIfPresent([String: Bool].self, forKey: .hooks) ?? [:]
        bridgePermissions = try container.decodeIfPresent([String: [String]].self, forKey: .bridgePermissions) ?? [:]
        scripts = try container.decodeIfPresent([ReplacementScript].self, forKey: .scripts) ?? []
        prefetch = try container.decodeIfPresent([PagePrefetch].self, forKey: .prefetch)
    }

    /// Whether the hook `name` is on, `defaultValue` when the configuration does not say.
    public func isHookEnabled(_ name: String, default defaultValue: Bool = true) -> Bool {
        hooks[name] ?? defaultValue
    }

    /// Whether a page of `origin` may call bridge module `module`. A module the configuration does not list is
    /// left to the app (nil); a listed module allows exactly its origins ("*" for any).
    public func bridgePermission(module: String, origin: String) -> Bool? {
        guard let origins = bridgePermissions[module] else { return nil }
        return origins.contains("*") || origins.contains(origin)
    }

    /// Whether `url` falls under the degrade list.
    public func isDegraded(_ url: URL) -> Bool {
        let text = url.absoluteString
        return degradedPrefixes.contains { text.hasPrefix($0) }
    }

    /// Checks what the signature cannot: the document's own consistency.
    func validate(now: Date) throws(ConfigError) {
        if let expiresAt, expiresAt <= now { throw .expired(expiresAt) }
        for prefix in degradedPrefixes {
            guard let url = URL(string: prefix), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host() != nil
            else { throw .malformed("degraded prefix '\(prefix)' is not an absolute http(s) URL") }
        }
        var names = Set<String>()
        for script in scripts {
            guard names.insert(script.name).inserted else {
                throw .malformed("script '\(script.name)' is listed twice")
            }
            try script.validate()
        }
    }
}
