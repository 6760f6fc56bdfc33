/// What a package file is, read without trusting it: its manifest and the file's own size and SHA-256.
///
/// Update servers and tools use this to describe packages; installers still verify the signature themselves.
public struct PackageInspection: Sendable, Hashable {
    public let manifest: PackageManifest
    /// Size of the zip file in bytes.
    public let size: Int64
    /// Lowercase hex SHA-256 of the whole zip file (what `PackageArtifact.sha256` publishes).
    public let sha256: String

    public init(manifest: PackageManifest, size: Int64, sha256: String) {
        self.manifest = manifest
        self.size = size
        self.sha256 = sha256
    }
}
