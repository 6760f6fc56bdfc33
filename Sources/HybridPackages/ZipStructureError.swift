/// Why `ZipStructureValidator` refused a zip before any zip reader was allowed to see it.
///
/// Each case names the structure that was wrong (and the entry, where there is one), because the same file may be
/// hostile on purpose: a developer reading the log needs to know whether it was damaged in transit (`truncated`,
/// `endRecordMissing`) or built to attack the reader (absurd ZIP64 values, encryption, overlapping entries).
public enum ZipStructureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file ends before a structure it declares (or is shorter than the smallest zip).
    case truncated(String)
    /// No end-of-central-directory record where the format puts it (the last 64 KiB of the file).
    case endRecordMissing
    /// The end-of-central-directory record, or its ZIP64 record or locator, is inconsistent.
    case endRecordInvalid(String)
    /// Spanned or split archives: packages are always a single file.
    case multiDiskArchive
    /// The central directory lies outside the file, overlaps the end records, or is too large to be a package's.
    case centralDirectoryInvalid(String)
    /// The entry count is not the number of central directory headers, or is beyond any package's.
    case entryCountInvalid(String)
    /// A central directory header is malformed; `index` counts from 0.
    case centralHeaderInvalid(index: Int, reason: String)
    /// An entry's extra fields (including its ZIP64 extended information) are malformed or contradict its header.
    case extraFieldInvalid(entry: String, reason: String)
    /// An entry's local header is missing, malformed or disagrees with its central directory header.
    case localHeaderInvalid(entry: String, reason: String)
    /// An entry's bytes reach outside the file, into the central directory, or into another entry.
    case entryOutOfBounds(entry: String, reason: String)
    /// An entry's sizes are impossible (stored sizes differ, or it would inflate beyond the limits).
    case entrySizeInvalid(entry: String, reason: String)
    /// An entry is encrypted; packages never are, and an encrypted entry stops ZIPFoundation's iteration silently.
    case encryptedEntry(String)
    /// An entry uses a data descriptor; `hybrid pack` never writes one, so local and central sizes must agree.
    case dataDescriptorEntry(String)
    /// An entry uses a compression method other than stored (0) or deflate (8).
    case unsupportedCompressionMethod(entry: String, method: UInt16)
    /// The file could not be read at all.
    case unreadable(String)

    public var description: String {
        switch self {
        case .truncated(let reason): return "truncated: \(reason)"
        case .endRecordMissing: return "no end-of-central-directory record in the last 64 KiB"
        case .endRecordInvalid(let reason): return "invalid end of central directory: \(reason)"
        case .multiDiskArchive: return "multi-disk (spanned) archives are not packages"
        case .centralDirectoryInvalid(let reason): return "invalid central directory: \(reason)"
        case .entryCountInvalid(let reason): return "invalid entry count: \(reason)"
        case .centralHeaderInvalid(let index, let reason):
            return "central directory header \(index) is invalid: \(reason)"
        case .extraFieldInvalid(let entry, let reason): return "'\(entry)' has invalid extra fields: \(reason)"
        case .localHeaderInvalid(let entry, let reason): return "'\(entry)' has an invalid local header: \(reason)"
        case .entryOutOfBounds(let entry, let reason): return "'\(entry)' lies outside its place: \(reason)"
        case .entrySizeInvalid(let entry, let reason): return "'\(entry)' has impossible sizes: \(reason)"
        case .encryptedEntry(let entry): return "'\(entry)' is encrypted; packages are never encrypted"
        case .dataDescriptorEntry(let entry):
            return "'\(entry)' uses a data descriptor, which package archives never do"
        case .unsupportedCompressionMethod(let entry, let method):
            return "'\(entry)' uses compression method \(method); only stored (0) and deflate (8) are read"
        case .unreadable(let reason): return "unreadable: \(reason)"
        }
    }
}
