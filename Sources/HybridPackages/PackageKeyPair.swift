import Crypto
import Foundation

/// An Ed25519 key pair for signing packages (`hybrid keygen` / `hybrid pack --key`).
public struct PackageKeyPair: Sendable {
    /// The 32 raw private key bytes (swift-crypto 3.x key types are not `Sendable`, bytes are).
    let privateRaw: Data
    public let verificationKey: PackageVerificationKey

    public init(privateKeyRawRepresentation raw: Data) throws(KeyFileError) {
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw .malformed(path: "<memory>")
        }
        privateRaw = raw
        verificationKey = try PackageVerificationKey(rawRepresentation: key.publicKey.rawRepresentation)
    }

    public static func generate() -> PackageKeyPair {
        let key = Curve25519.Signing.PrivateKey()
        // A freshly generated key always round-trips; the fallback branch exists only to avoid `try!`.
        if let pair = try? PackageKeyPair(privateKeyRawRepresentation: key.rawRepresentation) {
            return pair
        }
        return generate()
    }

    /// Reads a private key file written by `save(privateKeyTo:publicKeyTo:)`.
    public static func load(privateKeyFrom url: URL) throws(KeyFileError) -> PackageKeyPair {
        let bytes = try KeyFile.read(url, expecting: KeyFile.privateLabel)
        do { return try PackageKeyPair(privateKeyRawRepresentation: bytes) } catch {
            throw .malformed(path: url.path)
        }
    }

    /// Writes the private key (mode 0600) and the public key (mode 0644).
    public func save(privateKeyTo privateURL: URL, publicKeyTo publicURL: URL) throws(KeyFileError) {
        try KeyFile.write(privateRaw, label: KeyFile.privateLabel, to: privateURL, permissions: 0o600)
        try verificationKey.save(to: publicURL)
    }

    /// Signs the exact manifest bytes stored in the package.
    public func sign(manifestBytes: Data) throws -> ManifestSignature {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: privateRaw)
        let signature = try key.signature(for: manifestBytes)
        return ManifestSignature(keyID: verificationKey.keyID, signature: Data(signature))
    }
}
