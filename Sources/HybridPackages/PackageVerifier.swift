import Foundation

/// Checks a package file without installing it (`hybrid verify`): signature, entry safety, every size and hash (for a
/// file carried as a binary delta, what can be checked without the base: see ``DeltaDecoder/checkWithoutBase(delta:expectedSize:)``).
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
        let deltas = Set((manifest.diff?.deltas ?? []).map(\.path))
        for file in files {
            guard let entry = entries[file.path] else { throw .missingFile(file.path) }
            if deltas.contains(file.path) {
                // A delta is checked as far as it can be without the base: its CRC-32, size limit and header. The
                // rebuilt file's SHA-256 is checked by the installer, which has the base.
                let delta = try reader.readDelta(
                    entry, path: file.path, limit: DeltaDecoder.sizeLimit(outputSize: file.size))
                do { try DeltaDecoder().checkWithoutBase(delta: delta, expectedSize: file.size) } catch {
                    throw .deltaInvalid(path: file.path, error)
                }
            } else {
                do { try reader.stream(entry, expected: file) { _ in } } catch {
                    throw .wrapping(error, operation: "verify", path: file.path)
                }
            }
            done += file.size
            progress?(
                PackageProgress(phase: .verifying, completedBytes: done, totalBytes: total, path: file.path)
            )
        }
        return manifest
    }
}
