import Foundation
import Logging
import ZIPFoundation

/// Verifies and installs package files into a `PackageStore` (full packages and diffs).
///
/// Protocol (see docs/package-format.md): verify the signature and every entry *before* writing; extract into a private
/// staging directory while hashing each byte; one file-system sync; one `rename` into `versions/` (the
/// commit); then atomically rewrite the active pointer. A failure or crash at any point leaves the previous
/// version active and intact, and at worst a staging directory that the next `PackageStore` open removes.
public struct PackageInstaller: Sendable {
    public let store: PackageStore
    public let trustedKey: PackageVerificationKey
    /// The running container's version, compared with each manifest's `minimumContainerVersion`.
    public let containerVersion: SemanticVersion
    private let fileWriter: any FileWriting
    private let hook: (@Sendable (InstallStep) -> Void)?

    public init(
        store: PackageStore, trustedKey: PackageVerificationKey, containerVersion: SemanticVersion,
        fileWriter: any FileWriting = POSIXFileWriter(), hook: (@Sendable (InstallStep) -> Void)? = nil
    ) {
        self.store = store
        self.trustedKey = trustedKey
        self.containerVersion = containerVersion
        self.fileWriter = fileWriter
        self.hook = hook
    }

    /// Installs the package at `url` and, unless `activate` is false, makes it the serving version and
    /// collects garbage beyond the store's keep-N.
    @discardableResult
    public func install(
        packageAt url: URL, activate: Bool = true, progress: PackageProgressHandler? = nil
    )
        throws(PackageError) -> InstalledPackage
    {
        // Made per install, not once: a logger keeps the backend it was made with.
        let logger = Logger(label: "hybrid.packages")
        do {
            let installed = try performInstall(packageAt: url, activate: activate, progress: progress)
            logger.info(
                "package installed",
                metadata: [
                    "id": "\(installed.id)", "version": "\(installed.version)", "active": "\(activate)",
                    "file": "\(url.lastPathComponent)",
                ])
            return installed
        } catch {
            // Nothing changed: the previous version (if any) keeps serving.
            logger.notice(
                "package refused; the installed versions are unchanged",
                metadata: ["file": "\(url.lastPathComponent)", "error": "\(error)"])
            throw error
        }
    }

    private func performInstall(
        packageAt url: URL, activate: Bool, progress: PackageProgressHandler?
    ) throws(PackageError) -> InstalledPackage {
        let reader = try PackageArchiveReader(url: url)
        let signed = try reader.readSignedManifest(trustedKey: trustedKey)
        let manifest = signed.manifest
        guard manifest.minimumContainerVersion <= containerVersion else {
            throw .containerTooOld(required: manifest.minimumContainerVersion, running: containerVersion)
        }
        if store.installedVersions(manifest.id).contains(manifest.version) {
            throw .alreadyInstalled(id: manifest.id, version: manifest.version)
        }
        let base = try diffBase(for: manifest)
        let carried = manifest.diff.map { Set($0.changed) } ?? Set(manifest.files.map(\.path))
        let entries = try reader.contentEntries(expected: carried)
        hook?(.verified)

        let staging = try store.makeStagingDirectory(manifest.id)
        let installed: InstalledPackage
        do {
            hook?(.stagingCreated)
            try writeFiles(
                manifest: manifest, carried: carried, entries: entries, reader: reader, base: base,
                staging: staging,
                progress: progress)
            try write(
                signed.manifestBytes, to: staging.appendingPathComponent(PackageArchiveLayout.manifestPath))
            try write(
                signed.signatureBytes,
                to: staging.appendingPathComponent(PackageArchiveLayout.signaturePath))
            hook?(.filesWritten)
            try DurableFiles.syncFileSystem(containing: staging)
            hook?(.synced)
            installed = try store.commit(staging: staging, manifest: manifest)
            hook?(.committed)
        } catch {
            store.discard(staging: staging)
            throw error
        }
        if activate {
            try store.activate(committed: installed)
            hook?(.activated)
            try store.collectGarbage(manifest.id)
        }
        return installed
    }

    /// For a diff: the exact installed base it was made from, with every file it does not carry unchanged.
    private func diffBase(for manifest: PackageManifest) throws(PackageError) -> InstalledPackage? {
        guard let diff = manifest.diff else { return nil }
        guard store.installedVersions(manifest.id).contains(diff.baseVersion),
            let base = try? store.installedPackage(manifest.id, version: diff.baseVersion)
        else { throw .diffBaseNotInstalled(id: manifest.id, base: diff.baseVersion) }
        guard base.manifest.contentDigest == diff.baseContentDigest else {
            throw .diffBaseMismatch(id: manifest.id, base: diff.baseVersion)
        }
        let changed = Set(diff.changed)
        let baseFiles = base.filesByPath
        for file in manifest.files where !changed.contains(file.path) {
            guard let old = baseFiles[file.path], old.sha256 == file.sha256, old.size == file.size
            else {
                throw .diffBaseMismatch(id: manifest.id, base: diff.baseVersion)
            }
        }
        // Every delta's base file must be the one it was made from, before anything is written.
        for delta in diff.deltas ?? [] {
            guard let old = baseFiles[delta.base], old.sha256 == delta.baseSHA256 else {
                throw .diffBaseMismatch(id: manifest.id, base: diff.baseVersion)
            }
        }
        return base
    }

    private func writeFiles(
        manifest: PackageManifest, carried: Set<String>, entries: [String: Entry],
        reader: PackageArchiveReader,
        base: InstalledPackage?, staging: URL, progress: PackageProgressHandler?
    ) throws(PackageError) {
        let content = staging.appendingPathComponent(
            PackageArchiveLayout.contentDirectory, isDirectory: true)
        // Create each directory once up front instead of checking per file.
        var directories = Set<String>()
        for file in manifest.files {
            var components = file.path.split(separator: "/").dropLast()
            while !components.isEmpty {
                directories.insert(components.joined(separator: "/"))
                components = components.dropLast()
            }
        }
        do {
            try FileManager.default.createDirectory(at: content, withIntermediateDirectories: true)
            for directory in directories.sorted() {
                try FileManager.default.createDirectory(
                    at: content.appendingPathComponent(directory, isDirectory: true),
                    withIntermediateDirectories: true)
            }
        } catch {
            throw .wrapping(error, operation: "create", path: content.path)
        }
        let total = manifest.files.reduce(Int64(0)) { $0 + $1.size }
        var done: Int64 = 0
        let deltas = Dictionary(
            (manifest.diff?.deltas ?? []).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for (index, file) in manifest.files.enumerated() {
            let destination = content.appendingPathComponent(file.path, isDirectory: false)
            if carried.contains(file.path) {
                guard let entry = entries[file.path] else { throw .missingFile(file.path) }
                if let delta = deltas[file.path], let base {
                    try DeltaFileApplier(fileWriter: fileWriter).apply(
                        entry, source: delta, file: file, reader: reader, base: base, to: destination)
                } else {
                    try extract(entry, file: file, reader: reader, to: destination)
                }
            } else if let base {
                try reuse(base.fileURL(for: file.path), file: file, at: destination)
            } else {
                throw .missingFile(file.path)
            }
            done += file.size
            progress?(
                PackageProgress(
                    phase: .installing, completedBytes: done, totalBytes: total, path: file.path))
            hook?(.fileWritten(index: index + 1, count: manifest.files.count))
        }
    }

    private func extract(
        _ entry: Entry, file: ManifestFileEntry, reader: PackageArchiveReader, to destination: URL
    )
        throws(PackageError)
    {
        do {
            let sink = try fileWriter.createFile(at: destination)
            do {
                try reader.stream(entry, expected: file) { try sink.write($0) }
                try sink.close()
            } catch {
                try? sink.close()
                throw error
            }
        } catch {
            throw .wrapping(error, operation: "write", path: file.path)
        }
    }

    /// Takes an unchanged file from the base version. Installed versions are never modified, so a hard link
    /// is safe and costs no copy; across file systems (or where links fail) the bytes are copied.
    private func reuse(_ source: URL, file: ManifestFileEntry, at destination: URL)
        throws(PackageError)
    {
        guard InstalledVersionInspector.regularFileSize(source) == file.size else {
            throw .sizeMismatch(
                path: file.path, expected: file.size,
                actual: InstalledVersionInspector.regularFileSize(source) ?? -1)
        }
        if link(source.path, destination.path) == 0 { return }
        do {
            let handle = try FileHandle(forReadingFrom: source)
            defer { try? handle.close() }
            let sink = try fileWriter.createFile(at: destination)
            while let chunk = try handle.read(upToCount: PackageArchiveLayout.readChunkSize),
                !chunk.isEmpty
            {
                try sink.write(chunk)
            }
            try sink.close()
        } catch {
            throw .wrapping(error, operation: "copy", path: file.path)
        }
    }

    private func write(_ data: Data, to url: URL) throws(PackageError) {
        do {
            let sink = try fileWriter.createFile(at: url)
            try sink.write(data)
            try sink.close()
        } catch {
            throw .wrapping(error, operation: "write", path: url.lastPathComponent)
        }
    }
}
