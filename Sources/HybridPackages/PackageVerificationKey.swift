import Crypto
import Foundation

/// The public half of a signing key: what an app ships to trust packages.
public struct PackageVerificationKey: Sendable, Hashable {
    /// The 32 raw key bytes. Kept as bytes because swift-crypto's key types are not `Sendable` in 3.x.
    public let rawRepresentation: Data

    public init(rawRepresentation: Data) throws(KeyFileError) {
        guard (try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation)) != nil else {
            throw .malformed(path: "<memory>")
        }
        self.rawRepresentation = rawRepresentation
    }

    /// A short fingerprint (first 8 bytes of SHA-256 of the raw key, hex) written next to signatures,
    /// so a package signed with another key is reported as such rather than as "tampered".
    public var keyID: String {
        Array(SHA256.hash(data: rawRepresentation).prefix(8)).hexString
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` by this key.
    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawRepresentation) else {
            return false
        }
        return key.isValidSignature(signature, for: message)
    }

    public static func load(from url: URL) throws(KeyFileError) -> PackageVerificationKey {
        let bytes = try KeyFile.read(url, expecting: KeyFile.publicLabel)
        do { return try PackageVerificationKey(rawRepresentation: bytes) } catch {
            throw .malformed(path: url.path)
        }
    }

    public func save(to url: URL) throws(KeyFileError) {
        try KeyFile.write(rawRepresentation, label: KeyFile.publicLabel, to: url, permissions: 0o644)
    }
}
