import Foundation

/// The file a channel serves: the index's exact signed bytes plus a detached Ed25519 signature, in one JSON
/// object so a cache can never pair an index with another index's signature.
///
/// `{"algorithm":"ed25519","index":"<base64 of ReleaseIndex bytes>","keyID":"<16 hex>","signature":"<base64>"}`
///
/// The signature covers a fixed prefix plus the index bytes, so it can never be mistaken for a package
/// manifest's signature even where one key were (wrongly) used for both.
public struct SignedReleaseIndex: Sendable, Hashable, Codable {
    static let signingContext = Data("hybridkit-release-index-v1\n".utf8)

    public var algorithm: String
    /// The signed bytes of the `ReleaseIndex`: verified as stored, never re-encoded.
    public var index: Data
    /// Fingerprint of the signing key; a hint for error messages only.
    public var keyID: String
    public var signature: Data

    public init(algorithm: String, index: Data, keyID: String, signature: Data) {
        self.algorithm = algorithm
        self.index = index
        self.keyID = keyID
        self.signature = signature
    }

    /// Signs `index` with the release key.
    public static func sign(_ index: ReleaseIndex, with key: PackageKeyPair) throws -> SignedReleaseIndex {
        let bytes = try index.canonicalBytes()
        let signed = try key.sign(manifestBytes: signingContext + bytes)
        return SignedReleaseIndex(
            algorithm: "ed25519", index: bytes, keyID: signed.keyID, signature: signed.signature)
    }

    /// The file's bytes.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Decodes a served file and checks its signature with the trusted release key; nothing of an index is
    /// believed before this succeeds.
    public static func open(_ data: Data, trustedKey: PackageVerificationKey, source: String)
        throws(ReleaseIndexError) -> ReleaseIndex
    {
        let envelope: SignedReleaseIndex
        do { envelope = try JSONDecoder().decode(SignedReleaseIndex.self, from: data) } catch {
            throw .malformed(source: source, reason: "not a signed release index (\(error))")
        }
        guard envelope.algorithm == "ed25519" else {
            throw .malformed(source: source, reason: "unsupported signature algorithm '\(envelope.algorithm)'")
        }
        guard trustedKey.isValidSignature(envelope.signature, for: signingContext + envelope.index) else {
            if envelope.keyID != trustedKey.keyID {
                throw .untrustedKey(source: source, signedBy: envelope.keyID, trusted: trustedKey.keyID)
            }
            throw .signatureInvalid(source: source)
        }
        let index: ReleaseIndex
        do { index = try ReleaseIndex.decode(envelope.index) } catch {
            throw .malformed(source: source, reason: "signed bytes are not a release index (\(error))")
        }
        guard index.formatVersion == ReleaseIndex.currentFormatVersion else {
            throw .malformed(source: source, reason: "format version \(index.formatVersion) is not supported")
        }
        return index
    }
}
