import Foundation

/// Builds a signed package from a directory of H5 files (`hybrid pack`).
public struct PackagePacker: Sendable {
    public init() {}

    /// Hashes every regular file under `directory`, writes a manifest, signs it and zips it all to `output`.
    /// Symbolic links are refused rather than followed, so a package never depends on what they pointed at.
    @discardableResult
    public func pack(
        directory: URL, options: PackOptions, keyPair: PackageKeyPair, to output: URL,
        progress: PackageProgressHandler? = nil
    ) throws(PackageError) -> PackageManifest {
        let sources = try listFiles(in: directory)
        let totalBytes = sources.reduce(Int64(0)) { $0 + $1.size }
        var files: [ManifestFileEntry] = []
        var hashed: Int64 = 0
        for source in sources {
            let digest = try FileHashing.sha256(of: source.url)
            files.append(
                ManifestFileEntry(
                    path: source.path, size: digest.size, sha256: digest.hex,
                    mimeType: MIMETypes.type(forPath: source.path)))
            hashed += digest.size
            progress?(
                PackageProgress(
                    phase: .hashing, completedBytes: hashed, totalBytes: totalBytes, path: source.path))
        }
        let manifest = PackageManifest(
            id: options.id, version: options.version,
            minimumContainerVersion: options.minimumContainerVersion,
            serves: options.serves, entry: options.entry, files: files)
        try manifest.validate()
        let manifestBytes: Data
        let signatureBytes: Data
        do {
            manifestBytes = try manifest.canonicalData()
            signatureBytes = try keyPair.sign(manifestBytes: manifestBytes).encoded()
        } catch {
            throw .manifestInvalid("could not encode or sign the manifest: \(error)")
        }
        let writer = try PackageArchiveWriter(destination: output)
        do {
            try writer.addMetadata(manifestBytes: manifestBytes, signatureBytes: signatureBytes)
            var packed: Int64 = 0
            for source in sources {
                try writer.addFile(packagePath: source.path, from: source.url)
                packed += source.size
                progress?(
                    PackageProgress(
                        phase: .packing, completedBytes: packed, totalBytes: totalBytes, path: source.path))
            }
            try writer.finish()
        } catch {
            writer.discard()
            throw error
        }
        return manifest
    }

    private struct SourceFile {
        var path: String
        var url: URL
        var size: Int64
    }

    private func listFiles(in directory: URL) throws(PackageError) -> [SourceFile] {
        let root = directory.standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory),
            isDirectory.boolValue
        else {
            throw .sourceDirectoryInvalid("'\(directory.path)' is not a directory.")
        }
        let keys: [URLResourceKey] = [
            .isRegularFileKey, .isDirectoryKey, .isSymbolicLinkKey, .fileSizeKey,
        ]
        guard
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys)
        else {
            throw .sourceDirectoryInvalid("'\(directory.path)' cannot be listed.")
        }
        var result: [SourceFile] = []
        let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for case let url as URL in enumerator {
            let values: URLResourceValues
            do { values = try url.resourceValues(forKeys: Set(keys)) } catch {
                throw .wrapping(error, operation: "inspect", path: url.path)
            }
            let fullPath = url.standardizedFileURL.path
            guard fullPath.hasPrefix(rootPath) else {
                throw .sourceDirectoryInvalid("'\(fullPath)' is outside '\(rootPath)'.")
            }
            let relative = String(fullPath.dropFirst(rootPath.count))
            if values.isSymbolicLink == true {
                throw .sourceDirectoryInvalid(
                    "'\(relative)' is a symbolic link; copy the file it points to instead.")
            }
            if values.isDirectory == true { continue }
            guard values.isRegularFile == true else {
                throw .sourceDirectoryInvalid("'\(relative)' is not a regular file.")
            }
            do { _ = try PackagePath(validating: relative) } catch {
                throw .sourceDirectoryInvalid("'\(relative)': \(error)")
            }
            result.append(SourceFile(path: relative, url: url, size: Int64(values.fileSize ?? 0)))
        }
        return result.sorted { $0.path < $1.path }
    }
}
