/// A single pass over JSON bytes that bounds nesting depth before any decoder sees them.
///
/// Foundation's decoders recurse per level; a 10,000-deep payload must be refused here, cheaply,
/// rather than trusted to a decoder's own limit. Strings are skipped (brackets inside them do not count).
enum JSONShape {
    static func check<Bytes: Collection>(_ bytes: Bytes, maxDepth: Int) -> String? where Bytes.Element == UInt8 {
        // Native strings are contiguous UTF-8: scanning a buffer is several times faster than walking
        // string indices, which matters for megabyte payloads.
        if let result = bytes.withContiguousStorageIfAvailable({ scan($0, maxDepth: maxDepth) }) { return result }
        return scan(bytes, maxDepth: maxDepth)
    }

    private static func scan<Bytes: Collection>(_ bytes: Bytes, maxDepth: Int) -> String? where Bytes.Element == UInt8 {
        var depth = 0
        var inString = false
        var escaped = false
        var sawValue = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                sawValue = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                sawValue = true
                if depth > maxDepth { return "payload nests deeper than \(maxDepth) levels" }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth < 0 { return "payload has unbalanced brackets" }
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                break
            default:
                sawValue = true
            }
        }
        if inString { return "payload has an unterminated string" }
        if depth != 0 { return "payload has unbalanced brackets" }
        if !sawValue { return "payload is empty" }
        return nil
    }
}
