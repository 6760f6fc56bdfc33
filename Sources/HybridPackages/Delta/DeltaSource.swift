/// One file of a diff package carried as a binary delta: which file of the base version it is rebuilt from.
///
/// Listed in the signed diff manifest (`diff.deltas`), so a mirror cannot swap the base; the delta bytes themselves
/// (the zip entry `content/<path>`) are covered only by the rebuilt file's SHA-256 in the same manifest.
public struct DeltaSource: Sendable, Hashable, Codable {
    /// The file of the new version that the entry `content/<path>` rebuilds.
    public var path: String
    /// The file of the base version the delta applies to (the same path, a renamed one or another similar file).
    public var base: String
    /// That base file's SHA-256, so the installer uses exactly the bytes the delta was made from.
    public var baseSHA256: String

    public init(path: String, base: String, baseSHA256: String) {
        self.path = path
        self.base = base
        self.baseSHA256 = baseSHA256
    }
}
