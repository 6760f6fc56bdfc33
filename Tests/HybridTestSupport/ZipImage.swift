import Foundation

/// A zip taken apart into its entries and written back byte for byte, classic or ZIP64, with a map of where every
/// header field landed, so hostile-archive tests can rewrite any one field of a real signed package.
///
/// Shared by the package and update-server tests. Test-only and deliberately simple: it reads what ZIPFoundation writes (no comments, no data descriptors).
public struct ZipImage {
    public struct Entry {
        public var name: [UInt8]
        public var versionMadeBy: UInt16
        public var versionNeeded: UInt16
        public var flags: UInt16
        public var method: UInt16
        public var time: UInt16
        public var date: UInt16
        public var crc32: UInt32
        public var uncompressedSize: UInt64
        public var internalAttributes: UInt16
        public var externalAttributes: UInt32
        /// The stored bytes (compressed when `method` is 8).
        public var data: [UInt8]
        /// Overrides for the ZIP64 sizes (both headers), for entries that lie about their size.
        public var zip64Sizes: (compressed: UInt64, uncompressed: UInt64)?

        public var path: String { String(decoding: name, as: UTF8.self) }

        public init(
            name: [UInt8], versionMadeBy: UInt16, versionNeeded: UInt16, flags: UInt16, method: UInt16, time: UInt16,
            date: UInt16, crc32: UInt32, uncompressedSize: UInt64, internalAttributes: UInt16,
            externalAttributes: UInt32, data: [UInt8], zip64Sizes: (compressed: UInt64, uncompressed: UInt64)? = nil
        ) {
            self.name = name
            self.versionMadeBy = versionMadeBy
            self.versionNeeded = versionNeeded
            self.flags = flags
            self.method = method
            self.time = time
            self.date = date
            self.crc32 = crc32
            self.uncompressedSize = uncompressedSize
            self.internalAttributes = internalAttributes
            self.externalAttributes = externalAttributes
            self.data = data
            self.zip64Sizes = zip64Sizes
        }
    }

    /// One header field in the written bytes.
    public struct Field {
        public var name: String
        public var offset: Int
        public var width: Int
        public var value: UInt64
    }

    public enum Form: Sendable, CustomStringConvertible {
        case classic, zip64

        public var description: String { self == .classic ? "classic" : "zip64" }
    }

    public var entries: [Entry]

    public enum ParseError: Error { case malformed(String) }

    public init(entries: [Entry]) { self.entries = entries }

    public init(parsing bytes: [UInt8]) throws {
        guard let end = (0...(bytes.count - 22)).reversed().first(where: { bytes.le32($0) == 0x0605_4b50 }) else {
            throw ParseError.malformed("no end record")
        }
        let count = Int(bytes.le16(end + 10))
        var position = Int(bytes.le32(end + 16))
        var entries: [Entry] = []
        for _ in 0..<count {
            guard bytes.le32(position) == 0x0201_4b50 else { throw ParseError.malformed("central header") }
            let nameLength = Int(bytes.le16(position + 28))
            let extraLength = Int(bytes.le16(position + 30))
            let commentLength = Int(bytes.le16(position + 32))
            let compressed = Int(bytes.le32(position + 20))
            let local = Int(bytes.le32(position + 42))
            let localNameLength = Int(bytes.le16(local + 26))
            let localExtraLength = Int(bytes.le16(local + 28))
            let dataStart = local + 30 + localNameLength + localExtraLength
            entries.append(
                Entry(
                    name: Array(bytes[position + 46..<position + 46 + nameLength]),
                    versionMadeBy: bytes.le16(position + 4), versionNeeded: bytes.le16(position + 6),
                    flags: bytes.le16(position + 8), method: bytes.le16(position + 10),
                    time: bytes.le16(position + 12), date: bytes.le16(position + 14),
                    crc32: bytes.le32(position + 16), uncompressedSize: UInt64(bytes.le32(position + 24)),
                    internalAttributes: bytes.le16(position + 36), externalAttributes: bytes.le32(position + 38),
                    data: Array(bytes[dataStart..<dataStart + compressed]), zip64Sizes: nil))
            position += 46 + nameLength + extraLength + commentLength
        }
        self.entries = entries
    }

    /// Writes the zip. In the ZIP64 form every non-zero size and offset defers to a ZIP64 extra field (as a
    /// writer does for files over 4 GiB) and the end records are ZIP64 ones, so those fields exist to be mutated.
    public func write(_ form: Form) -> (bytes: [UInt8], fields: [Field]) {
        var out = Writer()
        var offsets: [Int] = []
        for (index, entry) in entries.enumerated() {
            let prefix = "entry\(index)(\(entry.path)).local"
            offsets.append(out.bytes.count)
            let compressed = entry.zip64Sizes?.compressed ?? UInt64(entry.data.count)
            let uncompressed = entry.zip64Sizes?.uncompressed ?? entry.uncompressedSize
            // ZIPFoundation reads a ZIP64 value of 0 as "absent", so zero sizes stay classic.
            let sizesInZIP64 = (
                uncompressed: form == .zip64 && uncompressed > 0, compressed: form == .zip64 && compressed > 0
            )
            let localZIP64Count = (sizesInZIP64.uncompressed ? 1 : 0) + (sizesInZIP64.compressed ? 1 : 0)
            out.put(prefix + ".signature", 0x0403_4b50, 4)
            out.put(prefix + ".versionNeeded", UInt64(form == .zip64 ? 45 : entry.versionNeeded), 2)
            out.put(prefix + ".flags", UInt64(entry.flags), 2)
            out.put(prefix + ".method", UInt64(entry.method), 2)
            out.put(prefix + ".time", UInt64(entry.time), 2)
            out.put(prefix + ".date", UInt64(entry.date), 2)
            out.put(prefix + ".crc32", UInt64(entry.crc32), 4)
            out.put(prefix + ".compressedSize", sizesInZIP64.compressed ? 0xFFFF_FFFF : compressed, 4)
            out.put(prefix + ".uncompressedSize", sizesInZIP64.uncompressed ? 0xFFFF_FFFF : uncompressed, 4)
            out.put(prefix + ".nameLength", UInt64(entry.name.count), 2)
            out.put(prefix + ".extraLength", localZIP64Count > 0 ? UInt64(4 + 8 * localZIP64Count) : 0, 2)
            out.raw(entry.name)
            if localZIP64Count > 0 {
                out.put(prefix + ".zip64.id", 1, 2)
                out.put(prefix + ".zip64.size", UInt64(8 * localZIP64Count), 2)
                if sizesInZIP64.uncompressed { out.put(prefix + ".zip64.uncompressedSize", uncompressed, 8) }
                if sizesInZIP64.compressed { out.put(prefix + ".zip64.compressedSize", compressed, 8) }
            }
            out.raw(entry.data)
        }
        let directoryOffset = out.bytes.count
        for (index, entry) in entries.enumerated() {
            let prefix = "entry\(index)(\(entry.path)).central"
            let compressed = entry.zip64Sizes?.compressed ?? UInt64(entry.data.count)
            let uncompressed = entry.zip64Sizes?.uncompressed ?? entry.uncompressedSize
            // ZIPFoundation reads a ZIP64 offset of 0 as "absent", so the first entry keeps a classic 0.
            let offset = UInt64(offsets[index])
            let offsetInZIP64 = form == .zip64 && offset > 0
            let sizesInZIP64 = (
                uncompressed: form == .zip64 && uncompressed > 0, compressed: form == .zip64 && compressed > 0
            )
            let zip64Count =
                (sizesInZIP64.uncompressed ? 1 : 0) + (sizesInZIP64.compressed ? 1 : 0) + (offsetInZIP64 ? 1 : 0)
            out.put(prefix + ".signature", 0x0201_4b50, 4)
            out.put(prefix + ".versionMadeBy", UInt64(entry.versionMadeBy), 2)
            out.put(prefix + ".versionNeeded", UInt64(form == .zip64 ? 45 : entry.versionNeeded), 2)
            out.put(prefix + ".flags", UInt64(entry.flags), 2)
            out.put(prefix + ".method", UInt64(entry.method), 2)
            out.put(prefix + ".time", UInt64(entry.time), 2)
            out.put(prefix + ".date", UInt64(entry.date), 2)
            out.put(prefix + ".crc32", UInt64(entry.crc32), 4)
            out.put(prefix + ".compressedSize", sizesInZIP64.compressed ? 0xFFFF_FFFF : compressed, 4)
            out.put(prefix + ".uncompressedSize", sizesInZIP64.uncompressed ? 0xFFFF_FFFF : uncompressed, 4)
            out.put(prefix + ".nameLength", UInt64(entry.name.count), 2)
            out.put(prefix + ".extraLength", zip64Count > 0 ? UInt64(4 + 8 * zip64Count) : 0, 2)
            out.put(prefix + ".commentLength", 0, 2)
            out.put(prefix + ".diskStart", 0, 2)
            out.put(prefix + ".internalAttributes", UInt64(entry.internalAttributes), 2)
            out.put(prefix + ".externalAttributes", UInt64(entry.externalAttributes), 4)
            out.put(prefix + ".localHeaderOffset", offsetInZIP64 ? 0xFFFF_FFFF : offset, 4)
            out.raw(entry.name)
            if zip64Count > 0 {
                out.put(prefix + ".zip64.id", 1, 2)
                out.put(prefix + ".zip64.size", UInt64(8 * zip64Count), 2)
                if sizesInZIP64.uncompressed { out.put(prefix + ".zip64.uncompressedSize", uncompressed, 8) }
                if sizesInZIP64.compressed { out.put(prefix + ".zip64.compressedSize", compressed, 8) }
                if offsetInZIP64 { out.put(prefix + ".zip64.localHeaderOffset", offset, 8) }
            }
        }
        let directorySize = UInt64(out.bytes.count - directoryOffset)
        let count = UInt64(entries.count)
        if form == .zip64 {
            let recordOffset = UInt64(out.bytes.count)
            out.put("zip64EndRecord.signature", 0x0606_4b50, 4)
            out.put("zip64EndRecord.recordSize", 44, 8)
            out.put("zip64EndRecord.versionMadeBy", 45, 2)
            out.put("zip64EndRecord.versionNeeded", 45, 2)
            out.put("zip64EndRecord.disk", 0, 4)
            out.put("zip64EndRecord.directoryDisk", 0, 4)
            out.put("zip64EndRecord.entriesOnDisk", count, 8)
            out.put("zip64EndRecord.entries", count, 8)
            out.put("zip64EndRecord.directorySize", directorySize, 8)
            out.put("zip64EndRecord.directoryOffset", UInt64(directoryOffset), 8)
            out.put("zip64Locator.signature", 0x0706_4b50, 4)
            out.put("zip64Locator.recordDisk", 0, 4)
            out.put("zip64Locator.recordOffset", recordOffset, 8)
            out.put("zip64Locator.totalDisks", 1, 4)
        }
        out.put("endRecord.signature", 0x0605_4b50, 4)
        out.put("endRecord.disk", 0, 2)
        out.put("endRecord.directoryDisk", 0, 2)
        out.put("endRecord.entriesOnDisk", form == .zip64 ? 0xFFFF : count, 2)
        out.put("endRecord.entries", form == .zip64 ? 0xFFFF : count, 2)
        out.put("endRecord.directorySize", form == .zip64 ? 0xFFFF_FFFF : directorySize, 4)
        out.put("endRecord.directoryOffset", form == .zip64 ? 0xFFFF_FFFF : UInt64(directoryOffset), 4)
        out.put("endRecord.commentLength", 0, 2)
        return (out.bytes, out.fields)
    }

    private struct Writer {
        var bytes: [UInt8] = []
        var fields: [Field] = []

        mutating func put(_ name: String, _ value: UInt64, _ width: Int) {
            fields.append(Field(name: name, offset: bytes.count, width: width, value: value))
            for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
        }

        mutating func raw(_ data: [UInt8]) { bytes.append(contentsOf: data) }
    }
}

extension Array where Element == UInt8 {
    public func le16(_ index: Int) -> UInt16 { UInt16(self[index]) | UInt16(self[index + 1]) << 8 }
    public func le32(_ index: Int) -> UInt32 { UInt32(le16(index)) | UInt32(le16(index + 2)) << 16 }

    /// Overwrites `field` with `value` (truncated to the field's width).
    public func patching(_ field: ZipImage.Field, with value: UInt64) -> [UInt8] {
        var copy = self
        for index in 0..<field.width {
            copy[field.offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))
        }
        return copy
    }
}
