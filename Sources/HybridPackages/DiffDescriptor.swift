/// Marks a manifest as a diff package and binds it to the one base version it can be applied to.
///
/// The manifest around it still lists every file of the *resulting* version; the zip carries only
/// `changed` files, the rest are taken from the installed base after checking they are the same bytes.
public struct DiffDescriptor: Sendable, Hashable, Codable {
    /// The exact version this diff must be applied to.
    public var baseVersion: SemanticVersion
    /// `PackageManifest.contentDigest` of the base: same version number with other contents is refused too.
    public var baseContentDigest: String
    /// Paths whose bytes are carried in this zip (added or modified files).
    public var changed: [String]
    /// Paths of the base that the new version no longer has.
    public var removed: [String]
    /// Changed files carried as binary deltas against a base file rather than whole (absent when none is). Only
    /// in manifests of format ``PackageManifest/deltaFormatVersion``, which readers that predate deltas refuse
    /// instead of installing delta bytes as the file.
    public var deltas: [DeltaSource]?

    public init(
        baseVersion: SemanticVersion, baseContentDigest: String, changed: [String], removed: [String],
        deltas: [DeltaSource]? = nil
    ) {
        self.baseVersion = baseVersion
        self.baseContentDigest = baseContentDigest
        self.changed = changed
        self.removed = removed
        self.deltas = deltas
    }
}
