/// The byte layout of a binary delta (see docs/package-format.md, "Binary deltas").
///
/// ```
/// offset  size  field
/// 0       8     magic "HKDELTA\0"
/// 8       1     format version (1)
/// 9       1     compression of the body (1 = raw deflate, RFC 1951)
/// 10      2     reserved, zero
/// 12      8     base size, unsigned little-endian
/// 20      8     output size, unsigned little-endian
/// 28      8     body size (bytes after the header), unsigned little-endian
/// 36      …     body: one deflate stream of records until the output is complete
/// ```
///
/// A record is bsdiff's control triple followed by its data: `add`, `extra` and `seek` as LEB128 varints (unsigned,
/// at most 10 bytes each; `seek` zigzag-encoded: 0, -1, 1, -2 … → 0, 1, 2, 3 …); then the `add` bytes as chunks, each
/// two varints `same` and `changed` (together at least 1) followed by `changed` difference bytes: `same` bytes are
/// copied from the base at the read position, then each difference byte is added, modulo 256, to the next base byte
/// (the read position advances over both); then `extra` bytes copied as they are; then the read position moves by
/// `seek`. bsdiff keeps control, diff and extra data in three streams and writes every difference, zeros included;
/// here they are interleaved in one stream, so the decoder consumes a single push-style inflater in order and buffers
/// no stream (memory: the base, the delta and fixed buffers), and runs of zeros are counted, not written. The body
/// size makes a truncated or extended delta fail before decoding, whatever the deflate stream's last bits say.
enum DeltaFormat {
    static let magic: [UInt8] = Array("HKDELTA".utf8) + [0]
    static let version: UInt8 = 1
    static let deflateCompression: UInt8 = 1
    static let headerSize = 36
    /// The longest LEB128 encoding of a 64-bit value.
    static let maximumVarintSize = 10
    /// Inflater and output buffer size: small, so the decoder's own memory does not grow with the file.
    static let bufferSize = 64 * 1024

    struct Header: Equatable {
        var baseSize: Int64
        var outputSize: Int64
        var bodySize: Int64

        func encoded() -> [UInt8] {
            var bytes = DeltaFormat.magic
            bytes.append(DeltaFormat.version)
            bytes.append(DeltaFormat.deflateCompression)
            bytes.append(contentsOf: [0, 0])
            bytes.append(contentsOf: littleEndian(UInt64(baseSize)))
            bytes.append(contentsOf: littleEndian(UInt64(outputSize)))
            bytes.append(contentsOf: littleEndian(UInt64(bodySize)))
            return bytes
        }

        /// Parses and checks a header; sizes beyond `Int64.max` are refused here so no later sum can overflow.
        static func parse<Bytes: RandomAccessCollection>(_ bytes: Bytes) throws(DeltaError) -> Header
        where Bytes.Element == UInt8, Bytes.Index == Int {
            guard bytes.count >= DeltaFormat.headerSize else {
                if bytes.count >= DeltaFormat.magic.count, !bytes.starts(with: DeltaFormat.magic) {
                    throw .notADelta
                }
                throw .truncated
            }
            let start = bytes.startIndex
            guard bytes[start..<(start + 8)].elementsEqual(DeltaFormat.magic) else { throw .notADelta }
            guard bytes[start + 8] == DeltaFormat.version else { throw .unsupportedVersion(Int(bytes[start + 8])) }
            guard bytes[start + 9] == DeltaFormat.deflateCompression else {
                throw .unsupportedCompression(Int(bytes[start + 9]))
            }
            guard bytes[start + 10] == 0, bytes[start + 11] == 0 else {
                throw .invalidControl("reserved header bytes are not zero")
            }
            let base = readUInt64(bytes, at: start + 12)
            let output = readUInt64(bytes, at: start + 20)
            let body = readUInt64(bytes, at: start + 28)
            guard base <= UInt64(Int64.max), output <= UInt64(Int64.max), body <= UInt64(Int64.max) else {
                throw .invalidControl("a declared size is larger than 2^63")
            }
            return Header(baseSize: Int64(base), outputSize: Int64(output), bodySize: Int64(body))
        }
    }

    /// Appends `value` as an unsigned LEB128 varint: 7 bits a byte, low bits first, high bit set on all but the last.
    /// Fixed 8-byte fields were tried first: varints made the deflated deltas of real releases 3–9% smaller.
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }

    static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    static func readUInt64<Bytes: RandomAccessCollection>(_ bytes: Bytes, at offset: Int) -> UInt64
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        return value
    }
}
