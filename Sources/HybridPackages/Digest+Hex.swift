import Crypto

extension Sequence where Element == UInt8 {
    /// Lowercase hexadecimal, the form hashes take in manifests and file names.
    var hexString: String {
        var text = ""
        text.reserveCapacity(64)
        for byte in self {
            text += String(byte >> 4, radix: 16)
            text += String(byte & 0x0F, radix: 16)
        }
        return text
    }
}

extension SHA256.Digest {
    var hexString: String { Array(self).hexString }
}
