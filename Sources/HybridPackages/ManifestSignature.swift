import Foundation

/// The detached signature stored as `manifest.sig`: an Ed25519 signature over the exact bytes of `manifest.json`.
public struct ManifestSignature: Sendable, Hashable, Codable {
    public var algorithm: String
    /// Fingerprint of the signing key (`PackageVerificationKey.keyID`); a hint for error messages, not trusted.
    public var keyID: String
    /// The 64-byte signature, base64 in JSON.
    public var signature: Data

    public init(keyID: String, signature: Data) {
        self.algorithm = "ed25519"
        self.keyID = keyID
        self.signature = signature
    }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    static func decode(_ data: Data) throws(PackageError) -> ManifestSignature {
        do { return try JSONDecoder().decode(ManifestSignature.self, from: data) } catch {
            throw .manifestInvalid("manifest.sig is not a valid signature file: \(error)")
        }
    }

    /// Checks this signature over `manifestBytes` with the trusted key, telling a wrong key from a bad signature.
    public func verify(manifestBytes: Data, with key: PackageVerificationKey) throws(PackageError) {
        guard algorithm == "ed25519" else {
            throw .manifestInvalid("Unsupported signature algorithm '\(algorithm)'.")
        }
        guard key.isValidSignature(signature, for: manifestBytes) else {
            if keyID != key.keyID { throw .untrustedSigningKey(signedBy: keyID, trusted: key.keyID) }
            throw .signatureInvalid
        }
    }
}
