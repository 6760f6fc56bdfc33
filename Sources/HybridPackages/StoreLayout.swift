import Foundation

/// Where things live inside the store root (see docs/package-format.md, "On-disk store").
struct StoreLayout: Sendable {
    let root: URL

    static let versionsName = "versions"
    static let stagingName = "staging"
    static let pointerName = "active.json"
    /// Downloads sit beside the packages; the leading dot keeps the name out of the package-id space.
    static let downloadsName = ".downloads"

    func packageDirectory(_ id: String) -> URL { root.appendingPathComponent(id, isDirectory: true) }
    func versionsDirectory(_ id: String) -> URL {
        packageDirectory(id).appendingPathComponent(Self.versionsName, isDirectory: true)
    }
    func versionDirectory(_ id: String, _ version: SemanticVersion) -> URL {
        versionsDirectory(id).appendingPathComponent(version.description, isDirectory: true)
    }
    func stagingDirectory(_ id: String) -> URL {
        packageDirectory(id).appendingPathComponent(Self.stagingName, isDirectory: true)
    }
    func pointerURL(_ id: String) -> URL {
        packageDirectory(id).appendingPathComponent(Self.pointerName)
    }
    var downloadsDirectory: URL { root.appendingPathComponent(Self.downloadsName, isDirectory: true) }
}
