import Foundation

/// Checks a package file without installing it (`hybrid verify`): signature, entry safety, every size and hash.
public struct PackageVerifier: Sendable {
    public let trustedKey: PackageVerificationKey

    public init(trustedKey: PackageVerificationKey) { self.trustedKey = trustedKey }

    /// Returns the verified manifest, or throws the first problem found.
    @discardableResult
    public func verify(packageAt url: URL, progress: PackageProgressHandler? = nil)
        throws(PackageError)
        -> PackageManifest
    {
        let reader = try PackageArchiveReader(url: url)
        let signed = try reader.readSignedManifest(trustedKey: trustedKey)
        let manifest = signed.manifest
        let carried = manifest.diff.map { Set($0.changed) } ?? Set(manifest.files.map(\.path))
        let entries = try reader.contentEntries(expected: carried)
        let files = manifest.files.filter { carried.contains($0.path) }
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        var done: Int64 = 0
        for file in files {
            guard let entry = entries[file.path] else { throw .missingFile(file.path) }
            do { try reader.stream(entry, expected: file) { _ in } } catch {
                throw .wrapping(error, operation: "verify", path: file.path)
            }
            done += file.size
            progress?(
                PackageProgress(phase: .verifying, completedBytes: done, totalBytes: total, path: file.path)
            )
        }
        return manifest
    }
}
