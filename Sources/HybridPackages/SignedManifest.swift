import Foundation

/// A manifest together with the exact bytes that were signed and the signature over them.
public struct SignedManifest: Sendable {
    public let manifest: PackageManifest
    /// The bytes of `manifest.json` as stored; these are what the signature covers.
    public let manifestBytes: Data
    public let signatureBytes: Data
}
