import Foundation

/// A request matched to a file of an active package.
public struct ResolvedPackageFile: Sendable {
    public let package: InstalledPackage
    public let entry: ManifestFileEntry
    /// The file's bytes on disk.
    public let fileURL: URL
    /// True when the request named no file and the entry page was served instead (SPA fallback).
    public let isFallback: Bool

    public var mimeType: String { entry.mimeType }
}
