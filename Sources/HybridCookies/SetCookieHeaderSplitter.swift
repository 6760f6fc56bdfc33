/// Splits a *combined* Set-Cookie string — several headers joined with ", " by an HTTP stack
/// (e.g. `HTTPURLResponse.allHeaderFields` on older platforms) — back into single header values.
///
/// A comma only separates cookies when what follows looks like the start of a new cookie:
/// optional spaces, then a token without spaces, ';' or ',' that ends in '='. So the comma in
/// `Expires=Wed, 09 Jun 2021 10:18:14 GMT` is kept. A nameless cookie after a comma cannot be told
/// apart from a value containing a comma; it stays attached (prefer uncombined headers when available).
public enum SetCookieHeaderSplitter {
    public static func split(_ combined: String) -> [String] {
        let bytes = Array(combined.utf8)
        var parts: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ","), startsNewCookie(bytes, at: index + 1) {
                parts.append(trimmed(bytes[start..<index]))
                start = index + 1
            }
            index += 1
        }
        parts.append(trimmed(bytes[start..<bytes.count]))
        return parts.filter { !$0.isEmpty }
    }

    private static func startsNewCookie(_ bytes: [UInt8], at position: Int) -> Bool {
        var index = position
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        let tokenStart = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "="): return index > tokenStart
            case UInt8(ascii: ";"), UInt8(ascii: ","), 0x20, 0x09: return false
            default: index += 1
            }
        }
        return false
    }

    private static func trimmed(_ slice: ArraySlice<UInt8>) -> String {
        var lower = slice.startIndex
        var upper = slice.endIndex
        while lower < upper, slice[lower] == 0x20 || slice[lower] == 0x09 { lower += 1 }
        while upper > lower, slice[upper - 1] == 0x20 || slice[upper - 1] == 0x09 { upper -= 1 }
        return String(decoding: slice[lower..<upper], as: UTF8.self)
    }
}
