/// A diff package offered in a release document: applies to an installed `from` version only.
public struct ReleaseDiff: Sendable, Hashable, Codable {
    /// The base version (the diff manifest's `diff.baseVersion`).
    public var from: String
    public var url: String
    public var size: Int64
    public var sha256: String

    public init(from: String, url: String, size: Int64, sha256: String) {
        self.from = from
        self.url = url
        self.size = size
        self.sha256 = sha256
    }
}
