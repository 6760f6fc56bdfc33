import Foundation

/// Builds a diff package (`hybrid diff <old> <new>`): the new version's full manifest, bound to the old
/// version's contents, carrying only added and modified files and listing removed ones.
public struct PackageDiffBuilder: Sendable {
    public init() {}

    /// Writes the diff that updates `oldPackage` to `newPackage` to `output` and returns its manifest.
    ///
    /// - Parameters:
    ///   - oldPackage: the installed (base) full package; the diff only applies on top of exactly its contents.
    ///   - newPackage: the full package the diff updates to.
    ///   - keyPair: signs the diff, which is a package of its own.
    ///   - output: where the diff zip is written.
    ///   - inputKey: verifies both input packages before anything is derived from them; defaults to the
    ///     signing key's public half, since both versions are normally signed by it.
    ///   - progress: hears each changed file as it is copied into the diff (bytes done of the changed bytes).
    @discardableResult
    public func buildDiff(
        from oldPackage: URL, to newPackage: URL, keyPair: PackageKeyPair, output: URL,
        inputKey: PackageVerificationKey? = nil, progress: PackageProgressHandler? = nil
    ) throws(PackageError) -> PackageManifest {
        let key = inputKey ?? keyPair.verificationKey
        let oldManifest = try PackageArchiveReader(url: oldPackage).readSignedManifest(trustedKey: key)
            .manifest
        let newReader = try PackageArchiveReader(url: newPackage)
        let newManifest = try newReader.readSignedManifest(trustedKey: key).manifest
        guard oldManifest.diff == nil, newManifest.diff == nil else {
            throw .manifestInvalid("Diffs are built between two full packages, not from a diff package.")
        }
        guard oldManifest.id == newManifest.id else {
            throw .manifestInvalid(
                "Cannot diff '\(oldManifest.id)' against '\(newManifest.id)': different packages.")
        }
        guard oldManifest.version < newManifest.version else {
            throw .manifestInvalid(
                "The new version \(newManifest.version) must be later than the old version \(oldManifest.version)."
            )
        }
        let oldFiles = oldManifest.filesByPath
        let newPaths = Set(newManifest.files.map(\.path))
        let changed = newManifest.files.filter { file in
            guard let old = oldFiles[file.path] else { return true }
            return old.sha256 != file.sha256 || old.size != file.size
        }
        let removed = oldManifest.files.map(\.path).filter { !newPaths.contains($0) }
        var diffManifest = newManifest
        diffManifest.diff = DiffDescriptor(
            baseVersion: oldManifest.version, baseContentDigest: oldManifest.contentDigest,
            changed: changed.map(\.path), removed: removed)
        let manifestBytes: Data
        let signatureBytes: Data
        do {
            manifestBytes = try diffManifest.canonicalData()
            signatureBytes = try keyPair.sign(manifestBytes: manifestBytes).encoded()
        } catch {
            throw .manifestInvalid("could not encode or sign the diff manifest: \(error)")
        }
        let entries = try newReader.contentEntries(expected: newPaths)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hybrid-diff-\(UUID().uuidString)")
        let writer = try PackageArchiveWriter(destination: output)
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try writer.addMetadata(manifestBytes: manifestBytes, signatureBytes: signatureBytes)
            let total = changed.reduce(Int64(0)) { $0 + $1.size }
            var done: Int64 = 0
            for (index, file) in changed.enumerated() {
                guard let entry = entries[file.path] else { throw PackageError.missingFile(file.path) }
                // Each changed file passes through a scratch file so memory stays bounded for large assets,
                // and is hash-checked on the way so a damaged input cannot produce a signed diff.
                let temporary = scratch.appendingPathComponent("\(index)")
                let sink = try POSIXFileWriter().createFile(at: temporary)
                try newReader.stream(entry, expected: file) { try sink.write($0) }
                try sink.close()
                try writer.addFile(packagePath: file.path, from: temporary)
                try? FileManager.default.removeItem(at: temporary)
                done += file.size
                progress?(
                    PackageProgress(phase: .diffing, completedBytes: done, totalBytes: total, path: file.path)
                )
            }
            try writer.finish()
        } catch {
            writer.discard()
            throw .wrapping(error, operation: "build the diff", path: output.path)
        }
        return diffManifest
    }
}
