import Foundation

/// Maps request URLs to files of active packages: longest `serves` prefix wins, then one dictionary lookup.
///
/// Reads the store's current snapshot on every call, so an activation or rollback takes effect on the next
/// request without rebuilding the resolver.
public struct PackageResolver: Sendable {
    /// A ``PackageStore``, or a ``DevelopmentPackage``.
    public let store: any PackageSnapshotSource
    /// When a path under a package's prefix names no file and looks like a route (no extension in its last
    /// component), serve the entry page so client-side routers work.
    public let spaFallback: Bool

    public init(store: any PackageSnapshotSource, spaFallback: Bool = false) {
        self.store = store
        self.spaFallback = spaFallback
    }

    /// The file to serve, nil when no active package serves this URL (load it from the network), or a typed
    /// error when the path tries to escape the package.
    public func resolve(_ url: String) throws(PackageRequestError) -> ResolvedPackageFile? {
        guard let (origin, path) = URLPrefix.split(url) else { throw .invalidURL(url) }
        let snapshot = store.snapshot()
        for route in snapshot.routes where route.prefix.origin == origin {
            guard let remainder = route.prefix.remainder(of: path) else { continue }
            return try resolve(remainder: remainder, in: route.package, url: url)
        }
        return nil
    }

    private func resolve(remainder: Substring, in package: InstalledPackage, url: String)
        throws(PackageRequestError) -> ResolvedPackageFile?
    {
        // Encoded separators are refused before decoding; decoding happens exactly once, and the decoded
        // path must pass the same check as zip entries, so `%2e%2e` ends up refused as `..`.
        let lowered = remainder.lowercased()
        if lowered.contains("%2f") || lowered.contains("%5c") { throw .encodedSeparator(url) }
        guard var decoded = String(remainder).removingPercentEncoding else {
            throw .invalidPercentEncoding(url)
        }
        if decoded.isEmpty { return file(package.manifest.entry, in: package, fallback: false) }
        if decoded.hasSuffix("/") { decoded += "index.html" }
        let path: PackagePath
        do { path = try PackagePath(validating: decoded) } catch { throw .unsafePath(url, error) }
        if let found = file(path.value, in: package, fallback: false) { return found }
        guard spaFallback, let last = path.value.split(separator: "/").last, !last.contains(".") else {
            return nil
        }
        return file(package.manifest.entry, in: package, fallback: true)
    }

    private func file(_ path: String, in package: InstalledPackage, fallback: Bool)
        -> ResolvedPackageFile?
    {
        guard let entry = package.filesByPath[path] else { return nil }
        return ResolvedPackageFile(
            package: package, entry: entry, fileURL: package.fileURL(for: path), isFallback: fallback)
    }
}
