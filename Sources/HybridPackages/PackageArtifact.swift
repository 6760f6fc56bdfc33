/// One downloadable package file as an update source describes it.
public struct PackageArtifact: Sendable, Hashable, Codable {
    /// Where to get it; opaque to the core (an URL for the HTTP client, a key for a fake).
    public var location: String
    /// Exact size in bytes: the download is complete when it has this many.
    public var size: Int64
    /// Lowercase hex SHA-256 of the whole file: names the partial download and is checked at the end.
    public var sha256: String

    public init(location: String, size: Int64, sha256: String) {
        self.location = location
        self.size = size
        self.sha256 = sha256
    }
}
