#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A single pass over JSON bytes that bounds nesting depth before any decoder sees them.
///
/// Foundation's decoders recurse per level; a 10,000-deep payload must be refused here, cheaply,
/// rather than trusted to a decoder's own limit. Strings are skipped (brackets inside them do not count).
enum JSONShape {
    static func check<Bytes: Collection>(_ bytes: Bytes, maxDepth: Int) -> String? where Bytes.Element == UInt8 {
        // Native strings are contiguous UTF-8: scanning a buffer is several times faster than walking
        // string indices, which matters for megabyte payloads.
        if let result = bytes.withContiguousStorageIfAvailable({ scanBuffer($0, maxDepth: maxDepth) }) {
            return result
        }
        return scan(bytes, maxDepth: maxDepth)
    }

    /// ``scan(_:maxDepth:)`` for a buffer, jumping through strings with `memchr`: a megabyte string argument is
    /// one string, and byte-at-a-time stepping through it was most of the check's time.
    private static func scanBuffer(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> String? {
        guard let base = bytes.baseAddress else { return "payload is empty" }
        var depth = 0
        var sawValue = false
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = base[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                sawValue = true
                guard let end = stringEnd(base, from: index, count: count) else {
                    return "payload has an unterminated string"
                }
                index = end + 1
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
        if depth != 0 { return "payload has unbalanced brackets" }
        if !sawValue { return "payload is empty" }
        return nil
    }

    /// The index of the quote that ends the string whose contents start at `start`; nil when none does.
    private static func stringEnd(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int? {
        var index = start
        while index < count {
            guard let quote = memchr(base + index, Int32(UInt8(ascii: "\"")), count - index) else { return nil }
            let quoteIndex = base.distance(to: quote.assumingMemoryBound(to: UInt8.self))
            // The quote ends the string unless a backslash before it escapes it: walk the escapes in between.
            guard let slash = memchr(base + index, Int32(UInt8(ascii: "\\")), quoteIndex - index) else {
                return quoteIndex
            }
            // An escape takes the backslash and the byte after it, which may be the quote itself.
            index = base.distance(to: slash.assumingMemoryBound(to: UInt8.self)) + 2
        }
        return nil
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

    /// The first `\uXXXX` escape in `bytes` that names a lone UTF-16 surrogate (a high one not followed by a
    /// low one, or a low one on its own), as written; nil when there is none. `JSON.stringify` writes a lone
    /// surrogate this way, and no decoder can turn it into a Swift string faithfully: the bridge refuses it
    /// (`bad_arguments`) instead of leaving the outcome to the JSON decoder of the platform.
    static func loneSurrogateEscape<Bytes: Collection>(in bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable({ findLoneSurrogate($0) }) { return result }
        return Array(bytes).withUnsafeBufferPointer { findLoneSurrogate($0) }
    }

    private static func findLoneSurrogate(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        func hexValue(_ byte: UInt8) -> UInt16? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt16(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt16(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt16(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }
        /// The code unit of a `\uXXXX` escape starting at `index` (the backslash), if there is one.
        func unit(at index: Int) -> UInt16? {
            guard index + 5 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { return nil }
            var value: UInt16 = 0
            for offset in 2...5 {
                guard let digit = hexValue(bytes[index + offset]) else { return nil }
                value = value << 4 | digit
            }
            return value
        }
        func escape(at index: Int) -> String {
            String(decoding: bytes[index..<min(index + 6, bytes.count)], as: UTF8.self)
        }
        guard let base = bytes.baseAddress else { return nil }
        var index = 0
        while index < bytes.count {
            // Straight to the next backslash: most payloads have none, and memchr skips them fast.
            guard let found = memchr(base + index, Int32(UInt8(ascii: "\\")), bytes.count - index) else {
                return nil
            }
            index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            guard let first = unit(at: index) else {
                index += 2  // any other escape: the backslash and the character it escapes
                continue
            }
            switch first {
            case 0xD800...0xDBFF:
                guard let second = unit(at: index + 6), (0xDC00...0xDFFF).contains(second) else {
                    return escape(at: index)
                }
                index += 12
            case 0xDC00...0xDFFF:
                return escape(at: index)
            default:
                index += 6
            }
        }
        return nil
    }
}
