/// How thoroughly the store checks installed versions when it opens.
public enum StoreIntegrityCheck: Sendable {
    /// Manifest readable (and signed, when a key is given) and every file present with its size: a few
    /// thousand `stat`s, cheap enough for every launch.
    case sizes
    /// Additionally re-hash every file; for a suspected-corrupt disk or a debug setting.
    case hashes
}
