/// One file of a package as the manifest promises it: where it lives, how big it is, its SHA-256 and MIME type.
public struct ManifestFileEntry: Sendable, Hashable, Codable {
    /// Path relative to the package root, '/'-separated (see `PackagePath`).
    public var path: String
    /// Exact size in bytes; checked while extracting so an oversized entry is cut off early.
    public var size: Int64
    /// Lowercase hex SHA-256 of the file's bytes.
    public var sha256: String
    /// The `Content-Type` served for this file.
    public var mimeType: String

    public init(path: String, size: Int64, sha256: String, mimeType: String) {
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.mimeType = mimeType
    }
}
