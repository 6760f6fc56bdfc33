/// What one refresh did.
public enum ConfigRefreshOutcome: Sendable, Equatable {
    /// A newer configuration was verified, cached and handed to the observers.
    case updated(version: UInt64)
    /// The server offered the configuration already in use.
    case unchanged(version: UInt64)
    /// The offer was refused or could not be fetched; the last good configuration (if any) stays in use.
    case keptLastGood(ConfigError)
}
