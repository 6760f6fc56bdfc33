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
    ///   - deltas: carry changed files as binary deltas against a file of the old version where that is at most
    ///     0.8× the deflated file (the manifest then needs a reader that knows deltas: format 2).
    ///   - progress: hears each changed file as it is copied into the diff (bytes done of the changed bytes).
    @discardableResult
    public func buildDiff(
        from oldPackage: URL, to newPackage: URL, keyPair: PackageKeyPair, output: URL,
        inputKey: PackageVerificationKey? = nil, deltas: Bool = false, progress: PackageProgressHandler? = nil
    ) throws(PackageError) -> PackageManifest {
        let key = inputKey ?? keyPair.verificationKey
        let oldReader = try PackageArchiveReader(url: oldPackage)
        let oldManifest = try oldReader.readSignedManifest(trustedKey: key).manifest
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
        let entries = try newReader.contentEntries(expected: newPaths)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hybrid-diff-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var sources: [DeltaSource] = []
        var staged: [(path: String, url: URL, delta: Bool)] = []
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let planner = deltas ? try makePlanner(oldReader, oldManifest) : nil
            let total = changed.reduce(Int64(0)) { $0 + $1.size }
            var done: Int64 = 0
            for (index, file) in changed.enumerated() {
                guard let entry = entries[file.path] else { throw PackageError.missingFile(file.path) }
                // Each changed file passes through a scratch file so the zip is written after the manifest is
                // signed, and is hash-checked on the way so a damaged input cannot produce a signed diff.
                let temporary = scratch.appendingPathComponent("\(index)")
                if let planner {
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(Int(clamping: file.size))
                    try newReader.stream(entry, expected: file) { bytes.append(contentsOf: $0) }
                    if let choice = try planner.choose(path: file.path, bytes: bytes) {
                        try Data(choice.delta).write(to: temporary)
                        sources.append(
                            DeltaSource(path: file.path, base: choice.base, baseSHA256: choice.baseSHA256))
                        staged.append((file.path, temporary, true))
                    } else {
                        try Data(bytes).write(to: temporary)
                        staged.append((file.path, temporary, false))
                    }
                } else {
                    let sink = try POSIXFileWriter().createFile(at: temporary)
                    try newReader.stream(entry, expected: file) { try sink.write($0) }
                    try sink.close()
                    staged.append((file.path, temporary, false))
                }
                done += file.size
                progress?(
                    PackageProgress(phase: .diffing, completedBytes: done, totalBytes: total, path: file.path)
                )
            }
        } catch let error as DeltaError {
            throw .deltaInvalid(path: newPackage.lastPathComponent, error)
        } catch {
            throw .wrapping(error, operation: "build the diff", path: output.path)
        }
        var diffManifest = newManifest
        diffManifest.diff = DiffDescriptor(
            baseVersion: oldManifest.version, baseContentDigest: oldManifest.contentDigest,
            changed: changed.map(\.path), removed: removed, deltas: sources.isEmpty ? nil : sources)
        // Only a diff that carries deltas needs the newer format, so every other package stays readable by
        // clients that predate deltas.
        diffManifest.formatVersion =
            sources.isEmpty ? PackageManifest.currentFormatVersion : PackageManifest.deltaFormatVersion
        let manifestBytes: Data
        let signatureBytes: Data
        do {
            manifestBytes = try diffManifest.canonicalData()
            signatureBytes = try keyPair.sign(manifestBytes: manifestBytes).encoded()
        } catch {
            throw .manifestInvalid("could not encode or sign the diff manifest: \(error)")
        }
        let writer = try PackageArchiveWriter(destination: output)
        do {
            try writer.addMetadata(manifestBytes: manifestBytes, signatureBytes: signatureBytes)
            for file in staged {
                try writer.addFile(packagePath: file.path, from: file.url, compressed: file.delta)
                try? FileManager.default.removeItem(at: file.url)
            }
            try writer.finish()
        } catch {
            writer.discard()
            throw .wrapping(error, operation: "build the diff", path: output.path)
        }
        return diffManifest
    }

    /// Reads every file of the old version (hash-checked) for the delta encoder: the publisher holds one
    /// version in memory, the phone never does.
    private func makePlanner(_ reader: PackageArchiveReader, _ manifest: PackageManifest) throws -> DeltaPlanner {
        let entries = try reader.contentEntries(expected: Set(manifest.files.map(\.path)))
        var files: [String: [UInt8]] = [:]
        for file in manifest.files {
            guard let entry = entries[file.path] else { throw PackageError.missingFile(file.path) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(clamping: file.size))
            try reader.stream(entry, expected: file) { bytes.append(contentsOf: $0) }
            files[file.path] = bytes
        }
        return DeltaPlanner(oldFiles: files, oldEntries: manifest.filesByPath)
    }
}
