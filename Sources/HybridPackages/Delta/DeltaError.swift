/// Why a binary delta could not be built or applied. Every case is the delta's fault (or the base's), never the
/// disk's: the installer treats all of them as "this delta is unusable" and the updater fetches the full package.
public enum DeltaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes do not start with the delta magic: not a delta at all.
    case notADelta
    /// A delta format this reader does not know (a newer publisher).
    case unsupportedVersion(Int)
    /// The header names a compression this reader does not know.
    case unsupportedCompression(Int)
    /// The delta ends inside its header or before its output is complete.
    case truncated
    /// The delta was made against a base of another size than the one given.
    case baseSizeMismatch(declared: Int64, actual: Int64)
    /// The delta declares an output size other than the manifest's for this file.
    case outputSizeMismatch(declared: Int64, expected: Int64)
    /// The compressed body does not inflate (corrupt deflate data).
    case corruptStream
    /// A control triple is impossible: a negative or overflowing length, a copy reaching outside the base, output
    /// beyond the declared size, or a triple that writes nothing after the first.
    case invalidControl(String)
    /// Bytes follow the complete output.
    case trailingData
    /// The delta is larger than any delta for this file can be; nothing of it was decoded.
    case tooLarge(size: Int64, limit: Int64)
    /// The decoded file does not have the manifest's SHA-256.
    case outputHashMismatch
    /// The base or target is too large for the encoder (2 GiB).
    case inputTooLarge(Int64)
    /// The compressor failed while encoding (out of memory in zlib, for one).
    case compressionFailed(String)

    public var description: String {
        switch self {
        case .notADelta:
            return "The data is not a HybridKit binary delta (wrong magic); download the full package."
        case .unsupportedVersion(let version):
            return
                "The binary delta uses format \(version), which this app does not read; download the full package or update the app."
        case .unsupportedCompression(let method):
            return
                "The binary delta uses compression \(method), which this app does not read; download the full package."
        case .truncated:
            return "The binary delta is truncated; download the full package."
        case .baseSizeMismatch(let declared, let actual):
            return
                "The binary delta was made against a \(declared)-byte base but the installed base is \(actual) bytes; download the full package."
        case .outputSizeMismatch(let declared, let expected):
            return
                "The binary delta declares a \(declared)-byte file but the manifest says \(expected); download the full package."
        case .corruptStream:
            return "The binary delta's compressed data is corrupt; download the full package."
        case .invalidControl(let reason):
            return "The binary delta is invalid (\(reason)); it is damaged or hostile: download the full package."
        case .trailingData:
            return
                "The binary delta has data after its complete output; it is damaged or hostile: download the full package."
        case .tooLarge(let size, let limit):
            return
                "The binary delta is \(size) bytes, more than the \(limit) any delta for this file may be; download the full package."
        case .outputHashMismatch:
            return
                "The file rebuilt from the binary delta does not match its SHA-256 in the manifest; download the full package."
        case .inputTooLarge(let size):
            return "A \(size)-byte file is too large to delta-encode (2 GiB at most); ship it whole."
        case .compressionFailed(let reason):
            return "Compressing the binary delta failed: \(reason)"
        }
    }
}
