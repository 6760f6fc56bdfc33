/// Names of the entries inside a package zip (see docs/package-format.md).
public enum PackageArchiveLayout {
    public static let manifestPath = "manifest.json"
    public static let signaturePath = "manifest.sig"
    /// Package files live under this directory so they can never collide with the manifest or signature.
    public static let contentDirectory = "content/"
    /// Upper bound on manifest and signature size, so a hostile zip cannot make us buffer gigabytes.
    static let maximumMetadataSize: UInt64 = 16 * 1024 * 1024
    /// Read buffer for streaming extraction: large enough that per-chunk overhead is negligible.
    static let readChunkSize = 256 * 1024
}
