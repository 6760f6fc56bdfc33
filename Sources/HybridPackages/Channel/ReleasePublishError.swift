/// Why `hybrid publish` refused to write a release tree. Nothing is half-published: indexes are replaced
/// atomically and only after every file they name is in place.
public enum ReleasePublishError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An input package failed verification with the package key.
    case packageRefused(path: String, reason: String)
    /// Only full packages are published; diffs are derived by the publisher.
    case diffGiven(path: String)
    /// The channel already lists this version with other bytes: versions are immutable once published.
    case versionConflict(id: String, version: String)
    /// The tree's current index cannot be trusted or read, so its sequence cannot be raised safely.
    case existingIndexUnusable(path: String, reason: String)
    /// An option is out of range.
    case invalidOption(String)
    /// Nothing to re-sign for `--refresh`.
    case nothingPublished(channel: String)
    /// The tree could not be written.
    case fileSystem(path: String, reason: String)

    public var description: String {
        switch self {
        case .packageRefused(let path, let reason):
            return "'\(path)' was refused: \(reason). Publish packages signed with --package-key."
        case .diffGiven(let path):
            return "'\(path)' is a diff package; publish full packages, the publisher builds the diffs."
        case .versionConflict(let id, let version):
            return
                "\(id) \(version) is already published with other contents; released versions are immutable, so raise the version."
        case .existingIndexUnusable(let path, let reason):
            return
                "The existing index '\(path)' is unusable (\(reason)); restore it or check --release-key, since its sequence must keep growing."
        case .invalidOption(let text):
            return text
        case .nothingPublished(let channel):
            return "No index exists on channel '\(channel)' yet; publish packages first."
        case .fileSystem(let path, let reason):
            return "Cannot write '\(path)': \(reason)."
        }
    }
}
