/// What `hybrid pack` is told about the package it builds.
public struct PackOptions: Sendable {
    public var id: String
    public var version: SemanticVersion
    public var minimumContainerVersion: SemanticVersion
    public var serves: [String]
    /// Path of the entry page inside the directory.
    public var entry: String

    public init(
        id: String, version: SemanticVersion, serves: [String], entry: String = "index.html",
        minimumContainerVersion: SemanticVersion = SemanticVersion(major: 0, minor: 0, patch: 0)
    ) {
        self.id = id
        self.version = version
        self.minimumContainerVersion = minimumContainerVersion
        self.serves = serves
        self.entry = entry
    }
}
