import Foundation

/// Reads a package file's manifest and hashes the file, for tools that describe packages (`hybrid pack`'s
/// summary, `hybrid serve`'s release listing).
///
/// The signature is only checked when a key is given: a server publishes what it was handed, and every client
/// verifies on install anyway, so the server does not need to hold the trusted key.
public struct PackageInspector: Sendable {
    public let trustedKey: PackageVerificationKey?

    public init(trustedKey: PackageVerificationKey? = nil) { self.trustedKey = trustedKey }

    public func inspect(packageAt url: URL) throws(PackageError) -> PackageInspection {
        let manifest = try PackageArchiveReader(url: url).readSignedManifest(trustedKey: trustedKey)
            .manifest
        let digest = try FileHashing.sha256(of: url)
        return PackageInspection(manifest: manifest, size: digest.size, sha256: digest.hex)
    }
}
