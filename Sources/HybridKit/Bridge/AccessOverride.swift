/// Run-time origins for a module, layered over its own ``BridgeAccess`` (a remote configuration's bridge
/// permissions, say). The module's subframe rule always stays.
public struct AccessOverride: Sendable, Equatable {
    public enum Mode: Sendable, Equatable {
        /// Both the module's own origins and these must allow the caller: an override can take access away,
        /// never grant it. The default, so a leaked configuration key cannot open native modules to new sites.
        case narrow
        /// These origins replace the module's own (the configuration is the authority on who may call).
        case replace
    }

    /// Origins as `location.origin` spells them, lower-cased; `"*"` stands for any.
    public var origins: Set<String>
    public var mode: Mode

    public init(origins: some Sequence<String>, mode: Mode = .narrow) {
        self.origins = Set(origins.map { $0.lowercased() })
        self.mode = mode
    }

    func allows(_ origin: String) -> Bool {
        origins.contains("*") || origins.contains(origin.lowercased())
    }
}
