import Foundation
import HybridPackages

/// The signed envelope that travels and is cached: the exact document bytes (base64) and a detached Ed25519
/// signature over them, made with the same key files as packages (`hybrid keygen`). Signing bytes rather than a
/// re-encoded structure means no canonical JSON is needed: what was signed is what is parsed.
public enum SignedConfig {
    public static let format = "hybridkit-config-v1"

    struct Envelope: Codable {
        var format: String
        var document: Data
        var signature: ManifestSignature
    }

    /// Signs a document (JSON bytes of a ``RemoteConfig``) after checking that it parses and is consistent, so a
    /// broken configuration is caught at signing time rather than on devices.
    public static func sign(document: Data, with key: PackageKeyPair, now: Date = Date()) throws(ConfigError) -> Data {
        let config = try decodeDocument(document)
        try config.validate(now: now)
        do {
            let signature = try key.sign(manifestBytes: document)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            return try encoder.encode(Envelope(format: format, document: document, signature: signature))
        } catch {
            throw .malformed("signing failed: \(error)")
        }
    }

    /// Encodes `config` and signs it.
    public static func sign(_ config: RemoteConfig, with key: PackageKeyPair, now: Date = Date()) throws(ConfigError)
        -> Data
    {
        try sign(document: try encodeDocument(config), with: key, now: now)
    }

    /// Verifies an envelope with the trusted key and returns its document, checked for consistency and expiry.
    public static func open(_ envelope: Data, trusting key: PackageVerificationKey, now: Date = Date())
        throws(ConfigError) -> RemoteConfig
    {
        let decoded: Envelope
        do { decoded = try JSONDecoder().decode(Envelope.self, from: envelope) } catch {
            throw .malformed("not a signed configuration (\(error))")
        }
        guard decoded.format == format else {
            throw .malformed("format '\(decoded.format)' is not \(format)")
        }
        do {
            try decoded.signature.verify(manifestBytes: decoded.document, with: key)
        } catch .untrustedSigningKey(let signedBy, let trusted) {
            throw .untrustedSigningKey(signedBy: signedBy, trusted: trusted)
        } catch {
            throw .signatureInvalid
        }
        let config = try decodeDocument(decoded.document)
        try config.validate(now: now)
        return config
    }

    public static func encodeDocument(_ config: RemoteConfig) throws(ConfigError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        do { return try encoder.encode(config) } catch { throw .malformed("cannot encode: \(error)") }
    }

    public static func decodeDocument(_ document: Data) throws(ConfigError) -> RemoteConfig {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do { return try decoder.decode(RemoteConfig.self, from: document) } catch {
            throw .malformed("the document is not a valid configuration (\(error))")
        }
    }
}
