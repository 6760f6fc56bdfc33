import Foundation

/// Why a configuration was not taken. Whatever the reason, the store keeps its last good configuration.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a signed configuration or its document is not valid.
    case malformed(String)
    /// Signed by another key than the one the app trusts.
    case untrustedSigningKey(signedBy: String, trusted: String)
    /// The signature does not match the document: it was altered after signing.
    case signatureInvalid
    /// The server offered a version that is not newer than the one in use (a replay or a stale cache).
    case staleVersion(offered: UInt64, current: UInt64)
    /// The same version number with different content: versions must never be reused.
    case versionReused(UInt64)
    /// The document's `expiresAt` has passed.
    case expired(Date)
    /// A replacement script's content does not hash to the value the config names.
    case scriptHashMismatch(name: String)
    /// The config server could not be reached or did not answer 200.
    case unreachable(url: String, reason: String)
    /// The answer is larger than the fetcher's limit.
    case tooLarge(limit: Int)
    /// The cache could not be read or written.
    case cache(path: String, reason: String)

    public var description: String {
        switch self {
        case .malformed(let why):
            "the configuration is malformed: \(why)"
        case .untrustedSigningKey(let signedBy, let trusted):
            "the configuration is signed by key \(signedBy), but the app trusts key \(trusted); sign it with the "
                + "matching private key"
        case .signatureInvalid:
            "the configuration's signature does not match its content: it was changed after signing; sign it again"
        case .staleVersion(let offered, let current):
            "the server offered configuration version \(offered), not newer than version \(current) in use; "
                + "publish a higher version"
        case .versionReused(let version):
            "configuration version \(version) was published twice with different content; give every change a new version"
        case .expired(let date):
            "the configuration expired at \(date.ISO8601Format()); publish a fresh one"
        case .scriptHashMismatch(let name):
            "replacement script '\(name)' does not match its sha256; recompute the hash or fix the script"
        case .unreachable(let url, let reason):
            "the configuration server \(url) could not be reached (\(reason)); the last good configuration stays in use"
        case .tooLarge(let limit):
            "the configuration is larger than \(limit) bytes"
        case .cache(let path, let reason):
            "the configuration cache at \(path) failed: \(reason)"
        }
    }
}
