import Crypto

extension Sequence where Element == UInt8 {
    /// Lowercase hexadecimal, the form hashes take in manifests and file names.
    ///
    /// Built from ASCII bytes: `String(_:radix:)` per nibble made this a twentieth of an install's CPU time,
    /// at one hash per file.
    var hexString: String {
        let digits: StaticString = "0123456789abcdef"
        var bytes: [UInt8] = []
        bytes.reserveCapacity(underestimatedCount * 2)
        digits.withUTF8Buffer { table in
            for byte in self {
                bytes.append(table[Int(byte >> 4)])
                bytes.append(table[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension SHA256.Digest {
    var hexString: String { Array(self).hexString }
}
