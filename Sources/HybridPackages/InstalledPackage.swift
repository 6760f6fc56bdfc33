import Foundation

/// One installed version of a package, immutable once committed. Lookups by path are dictionary hits,
/// so a scheme handler never walks directories per request.
public final class InstalledPackage: Sendable {
    public let manifest: PackageManifest
    /// `<store>/<id>/versions/<version>`.
    public let directory: URL
    public let filesByPath: [String: ManifestFileEntry]
    public let prefixes: [URLPrefix]

    init(manifest: PackageManifest, directory: URL) {
        self.manifest = manifest
        self.directory = directory
        filesByPath = manifest.filesByPath
        prefixes = manifest.serves.compactMap(URLPrefix.init)
    }

    public var id: String { manifest.id }
    public var version: SemanticVersion { manifest.version }

    /// Where the bytes of `path` live on disk.
    public func fileURL(for path: String) -> URL {
        directory.appendingPathComponent(
            PackageArchiveLayout.contentDirectory + path, isDirectory: false)
    }
}
