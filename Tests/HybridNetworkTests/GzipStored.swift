import Foundation

/// A gzip member of stored (uncompressed) deflate blocks: valid gzip without a compression library, enough to
/// check that the proxy decodes what a server encoded.
func gzipStored(_ data: Data) -> Data {
    let bytes = [UInt8](data)
    var out: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]
    var offset = 0
    repeat {
        let count = min(65535, bytes.count - offset)
        out.append(offset + count == bytes.count ? 1 : 0)
        let length = UInt16(count)
        out += [UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8(~length >> 8)]
        out += bytes[offset..<(offset + count)]
        offset += count
    } while offset < bytes.count
    var crc: UInt32 = 0xffff_ffff
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
    }
    crc = ~crc
    let size = UInt32(truncatingIfNeeded: bytes.count)
    for value in [crc, size] { out += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    return Data(out)
}
