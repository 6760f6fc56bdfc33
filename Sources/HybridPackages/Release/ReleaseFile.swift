/// One downloadable file in a release document (`full` in `GET /v1/packages/<id>/latest`).
public struct ReleaseFile: Sendable, Hashable, Codable {
    /// Absolute, or relative to the release document's own URL (the server writes `/v1/files/<name>`),
    /// so the same document works behind a proxy or when the files move to a CDN.
    public var url: String
    public var size: Int64
    /// Lowercase hex SHA-256 of the whole file.
    public var sha256: String

    public init(url: String, size: Int64, sha256: String) {
        self.url = url
        self.size = size
        self.sha256 = sha256
    }
}
