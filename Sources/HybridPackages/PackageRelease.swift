/// The latest release of a package as an update source reports it.
public struct PackageRelease: Sendable, Hashable, Codable {
    public var id: String
    public var version: SemanticVersion
    /// The full package.
    public var full: PackageArtifact
    /// Diff packages offered for this release, keyed by the base version they apply to.
    public var diffs: [String: PackageArtifact]
    /// Diff packages with binary deltas (manifest format 2), keyed like ``diffs``; preferred when present.
    public var deltaDiffs: [String: PackageArtifact]?

    public init(
        id: String, version: SemanticVersion, full: PackageArtifact,
        diffs: [SemanticVersion: PackageArtifact] = [:], deltaDiffs: [SemanticVersion: PackageArtifact] = [:]
    ) {
        self.id = id
        self.version = version
        self.full = full
        self.diffs = Dictionary(uniqueKeysWithValues: diffs.map { ($0.key.description, $0.value) })
        self.deltaDiffs =
            deltaDiffs.isEmpty
            ? nil : Dictionary(uniqueKeysWithValues: deltaDiffs.map { ($0.key.description, $0.value) })
    }

    /// The diff that applies to `base`, if the source offers one.
    public func diff(from base: SemanticVersion) -> PackageArtifact? { diffs[base.description] }

    /// The diff with binary deltas that applies to `base`, if the source offers one.
    public func deltaDiff(from base: SemanticVersion) -> PackageArtifact? { deltaDiffs?[base.description] }
}
