/// What a `Range` header asks of a file of known size (RFC 9110 §14): one `bytes=a-b`, `bytes=a-` or `bytes=-n`.
///
/// Anything else — other units, several ranges, garbage — is answered with the whole file, which RFC 9110 allows
/// (a server may ignore Range) and which every client handles; multipart answers would buy nothing here.
/// Shared by everything that serves package files: the update server and the offline scheme handler.
public enum ByteRangeRequest: Equatable, Sendable {
    /// Send the whole file (no header, or one we choose to ignore).
    case whole
    /// Send these bytes (inclusive bounds, already clamped to the file).
    case partial(ClosedRange<Int64>)
    /// A well-formed range that starts at or beyond the end: 416.
    case unsatisfiable

    public init(header: String?, size: Int64) {
        guard let header else {
            self = .whole
            return
        }
        let trimmed = header.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let spec = trimmed.dropFirst("bytes=".count).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash].trimmingSpaces
        let last = spec[spec.index(after: dash)...].trimmingSpaces
        if first.isEmpty {
            // Suffix: the last n bytes.
            guard let count = Int64(last), count >= 0 else {
                self = .whole
                return
            }
            guard count > 0, size > 0 else {
                self = .unsatisfiable
                return
            }
            self = .partial(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Int64(first), start >= 0 else {
            self = .whole
            return
        }
        var end = size - 1
        if !last.isEmpty {
            guard let asked = Int64(last), asked >= start else {
                self = .whole
                return
            }
            end = min(asked, size - 1)
        }
        guard start < size else {
            self = .unsatisfiable
            return
        }
        self = .partial(start...end)
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
