import Foundation
import HybridPackages

/// One package file in the served directory, with what its manifest says.
public struct CatalogEntry: Sendable, Hashable {
    /// The file name: the last component of `/v1/files/<name>`.
    public let name: String
    public let url: URL
    public let inspection: PackageInspection

    public var manifest: PackageManifest { inspection.manifest }
    /// Strong entity tag: the file's SHA-256, so a client can tell "same bytes" across restarts and hosts.
    public var entityTag: String { "\"\(inspection.sha256)\"" }
}
