import Logging

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

    private static let logger = Logger(label: "hybrid.packages")

    public init(header: String?, size: Int64) {
        guard let header else {
            self = .whole
            return
        }
        switch Self.parse(header, size: size) {
        case .success(let answer):
            self = answer
        case .failure(let reason):
            // Ignoring a Range is always allowed, so this is not an error for the client, but a client that meant
            // a range gets the whole file and should know why.
            Self.logger.notice(
                "Ignoring Range header \(String(header.prefix(80)).debugDescription) (\(reason.reason)); answering with the whole file. Send one range as bytes=<first>-<last>, bytes=<first>- or bytes=-<count>, with decimal digits only."
            )
            self = .whole
        }
    }

    /// Why a header was ignored, for the log line.
    private struct Ignored: Error {
        var reason: String
    }

    private static func parse(_ header: String, size: Int64) -> Result<ByteRangeRequest, Ignored> {
        // Spaces and tabs are allowed around the field value and around each bound (OWS), never inside a number.
        let trimmed = header.trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .failure(Ignored(reason: "not a bytes range")) }
        let spec = trimmed.dropFirst("bytes=".count).trimmingSpaces
        guard !spec.contains(",") else { return .failure(Ignored(reason: "several ranges")) }
        guard let dash = spec.firstIndex(of: "-") else { return .failure(Ignored(reason: "no '-'")) }
        let first = spec[..<dash].trimmingSpaces
        let last = spec[spec.index(after: dash)...].trimmingSpaces
        if first.isEmpty {
            // Suffix: the last n bytes.
            guard let count = decimal(last) else { return .failure(Ignored(reason: "suffix length is not digits")) }
            guard count > 0, size > 0 else { return .success(.unsatisfiable) }
            // count may be Int64.max (saturated): size - count cannot overflow for size >= 0.
            return .success(.partial(max(0, size - count)...(size - 1)))
        }
        guard let start = decimal(first) else { return .failure(Ignored(reason: "first byte is not digits")) }
        var end = size - 1
        if !last.isEmpty {
            guard let asked = decimal(last) else { return .failure(Ignored(reason: "last byte is not digits")) }
            guard asked >= start else { return .failure(Ignored(reason: "last byte before first")) }
            end = min(asked, size - 1)
        }
        guard start < size else { return .success(.unsatisfiable) }
        return .success(.partial(start...end))
    }

    /// A non-empty run of ASCII digits, saturated at Int64.max: a position past any file is still a position
    /// (`bytes=99999999999999999999-` is unsatisfiable, not garbage). `Int64(_:)` would accept a sign (`+5`),
    /// which RFC 9110's `1*DIGIT` does not.
    private static func decimal(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            value = overflowA || overflowB ? .max : sum
        }
        return value
    }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
