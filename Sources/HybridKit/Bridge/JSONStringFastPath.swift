import Foundation

/// The bridge's shortcut for the most common large value, a plain string, around Foundation's coders.
///
/// `JSONEncoder` escapes a string character by character (about 5 ns a byte here: 5 ms for a megabyte, as long as a
/// whole bare round trip's engine work), and `JSONDecoder` validates and copies it again. A string with nothing to
/// escape is its own JSON literal between quotes, so a `String` result that has no quote, backslash, slash or
/// control character is written as exactly the bytes `JSONEncoder` would write (it escapes `/` as `\/`, hence the
/// slash), and a `String` argument that is one literal without escapes is read as its bytes, after the same UTF-8
/// validation. Anything else goes through the coders as before, so what pages and methods see does not change.
enum JSONStringFastPath {
    /// `string` as the JSON literal `JSONEncoder` writes for it, when nothing in it needs escaping; nil otherwise.
    static func literal(_ string: String) -> String? {
        var string = string
        return string.withUTF8 { bytes -> String? in
            guard !needsEscaping(bytes) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count + 2) { buffer in
                guard let target = buffer.baseAddress else { return 0 }
                target.initialize(to: UInt8(ascii: "\""))
                if let source = bytes.baseAddress { (target + 1).initialize(from: source, count: bytes.count) }
                (target + bytes.count + 1).initialize(to: UInt8(ascii: "\""))
                return bytes.count + 2
            }
        }
    }

    /// Whether a byte needs escaping in `JSONEncoder`'s output: `"`, `/`, `\` or a control character. One pass that
    /// ORs a flag per byte (no early exit), which the compiler can vectorise.
    static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var found: UInt8 = 0
        for byte in bytes {
            let control: UInt8 = byte < 0x20 ? 1 : 0
            let special: UInt8 = byte == 0x22 || byte == 0x2F || byte == 0x5C ? 1 : 0
            found |= control | special
        }
        return found != 0
    }

    /// The string a JSON text is, when it is one string literal (whitespace around it allowed) with no escape and no
    /// control character inside, and valid UTF-8; nil otherwise (the decoder then decides, and refuses what it must).
    static func plainString(_ payload: Substring.UTF8View) -> String? {
        let read: String?? = payload.withContiguousStorageIfAvailable { all -> String? in
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
            var start = 0
            var end = all.count
            while start < end, isSpace(all[start]) { start += 1 }
            while end > start, isSpace(all[end - 1]) { end -= 1 }
            guard end - start >= 2, all[start] == UInt8(ascii: "\""), all[end - 1] == UInt8(ascii: "\"") else {
                return nil
            }
            let inner = UnsafeBufferPointer(rebasing: all[(start + 1)..<(end - 1)])
            var found: UInt8 = 0
            for byte in inner {
                let control: UInt8 = byte < 0x20 ? 1 : 0
                let special: UInt8 = byte == 0x22 || byte == 0x5C ? 1 : 0
                found |= control | special
            }
            guard found == 0 else { return nil }
            // Not `String(validating:as:)`: the Apple SDK type-check's iOS 17.4 standard library lacks it. Decoding
            // repairs ill-formed UTF-8 with U+FFFD, so the bytes come back unchanged exactly when they were valid.
            // Compared with one memcmp (a native string's bytes are contiguous), not element by element.
            let decoded = String(decoding: inner, as: UTF8.self)
            let same = decoded.utf8.withContiguousStorageIfAvailable { bytes in
                guard bytes.count == inner.count else { return false }
                guard let left = bytes.baseAddress, let right = inner.baseAddress else { return inner.isEmpty }
                return memcmp(left, right, inner.count) == 0
            }
            return same == true ? decoded : nil
        }
        return read ?? nil
    }
}
