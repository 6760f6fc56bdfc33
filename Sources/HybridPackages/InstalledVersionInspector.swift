import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides whether a version directory in the store is intact, for startup repair.
struct InstalledVersionInspector: Sendable {
    let trustedKey: PackageVerificationKey?
    let check: StoreIntegrityCheck

    /// The version's manifest when the directory is intact, nil when anything is missing or wrong.
    func intactManifest(at directory: URL, id: String, version: SemanticVersion) -> PackageManifest? {
        let manifestURL = directory.appendingPathComponent(PackageArchiveLayout.manifestPath)
        guard let bytes = try? Data(contentsOf: manifestURL),
            let manifest = try? PackageManifest.decode(bytes),
            manifest.id == id, manifest.version == version,
            manifest.version.description == version.description
        else { return nil }
        if let trustedKey {
            let signatureURL = directory.appendingPathComponent(PackageArchiveLayout.signaturePath)
            guard let signatureBytes = try? Data(contentsOf: signatureURL),
                let signature = try? ManifestSignature.decode(signatureBytes),
                (try? signature.verify(manifestBytes: bytes, with: trustedKey)) != nil
            else { return nil }
        }
        let package = InstalledPackage(manifest: manifest, directory: directory)
        for file in manifest.files {
            let url = package.fileURL(for: file.path)
            guard Self.regularFileSize(url) == file.size else { return nil }
            if check == .hashes {
                guard let digest = try? FileHashing.sha256(of: url), digest.hex == file.sha256 else {
                    return nil
                }
            }
        }
        return manifest
    }

    /// `lstat` size of a regular file; nil for anything else (missing, directory, symlink).
    static func regularFileSize(_ url: URL) -> Int64? {
        var info = stat()
        let result = url.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { return -1 }
            return lstat(path, &info)
        }
        guard result == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
