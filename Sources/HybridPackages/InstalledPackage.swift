import Foundation

/// One installed version of a package, immutable once committed. Lookups by path are dictionary hits,
/// so a scheme handler never walks directories per request.
public final class InstalledPackage: Sendable {
    public let manifest: PackageManifest
    /// `<store>/<id>/versions/<version>`.
    public let directory: URL
    public let filesByPath: [String: ManifestFileEntry]
    public let prefixes: [URLPrefix]
    /// Where the files are: `content/` of ``directory`` for an installed version, the directory itself for a
    /// ``DevelopmentPackage``.
    private let contentDirectory: URL

    convenience init(manifest: PackageManifest, directory: URL) {
        let content = directory.appendingPathComponent(PackageArchiveLayout.contentDirectory, isDirectory: true)
        self.init(manifest: manifest, directory: directory, contentDirectory: content)
    }

    init(manifest: PackageManifest, directory: URL, contentDirectory: URL) {
        self.manifest = manifest
        self.directory = directory
        self.contentDirectory = contentDirectory
        filesByPath = manifest.filesByPath
        prefixes = manifest.serves.compactMap(URLPrefix.init)
    }

    public var id: String { manifest.id }
    public var version: SemanticVersion { manifest.version }

    /// Where the bytes of `path` live on disk.
    public func fileURL(for path: String) -> URL {
        contentDirectory.appendingPathComponent(path, isDirectory: false)
    }
}
