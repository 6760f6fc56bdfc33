import Foundation

/// A pre-flight check of a zip's structure, run before ZIPFoundation opens the file.
///
/// Why it exists: ZIPFoundation trusts the sizes and offsets it reads. A ZIP64 value near 2^63 traps inside it
/// (integer overflow, SIGILL), a stored entry with a huge size and no bytes makes extraction spin forever, and an
/// encrypted entry silently ends its iteration, so entries after it are never checked. All of that happens before
/// any signature can be checked, on files an attacker controls (downloads, `hybrid serve`'s directory).
///
/// So this reads the structures ZIPFoundation will read — the end-of-central-directory record, the ZIP64 record
/// and locator, every central directory header, its extra fields and the local header it points to — and refuses
/// the file unless every size and offset lies inside the file, the headers agree with each other, and nothing uses
/// a feature the package format never uses (encryption, data descriptors, other compression methods, multiple
/// disks). It mirrors ZIPFoundation's own choices (which end record it finds, when it takes ZIP64 values) so that
/// what is validated is exactly what ZIPFoundation goes on to use. It is not a zip reader: it never inflates.
///
/// Memory is bounded by `Limits.maximumCentralDirectorySize` plus one local header; time is linear in the
/// central directory. All arithmetic on values from the file is overflow-checked.
struct ZipStructureValidator: Sendable {
    struct Limits: Sendable {
        /// A package's central directory is ~100 bytes per file; 64 MiB allows several hundred thousand files.
        var maximumCentralDirectorySize: UInt64 = 64 * 1024 * 1024
        var maximumEntryCount: UInt64 = 500_000
        /// Deflate cannot expand data more than 1032:1, so a larger claimed ratio is a lie about the size.
        var maximumDeflateRatio: UInt64 = 1032
        /// The most all entries may inflate to together: far beyond any web package, far below 2^63.
        var maximumTotalUncompressedSize: UInt64 = 16 * 1024 * 1024 * 1024
    }

    /// What the validated structure says, for the reader's cross-checks.
    struct Summary: Sendable, Equatable {
        var fileSize: UInt64
        var entryCount: Int
        var usesZIP64: Bool
        /// The file that was validated, so the reader can tell whether ZIPFoundation opened the same one.
        var identity: ZipFileIdentity?
    }

    var limits = Limits()

    private enum Signature {
        static let localHeader: UInt32 = 0x0403_4b50
        static let centralHeader: UInt32 = 0x0201_4b50
        static let endRecord: UInt32 = 0x0605_4b50
        static let zip64EndRecord: UInt32 = 0x0606_4b50
        static let zip64Locator: UInt32 = 0x0706_4b50
    }

    private enum Size {
        static let localHeader: UInt64 = 30
        static let centralHeader = 46
        static let endRecord: UInt64 = 22
        static let zip64EndRecord: UInt64 = 56
        static let zip64Locator: UInt64 = 20
        static let maximumComment: UInt64 = 0xFFFF
    }

    private enum Flag {
        static let encrypted: UInt16 = 1 << 0
        static let dataDescriptor: UInt16 = 1 << 3
        static let patchedData: UInt16 = 1 << 5
        static let strongEncryption: UInt16 = 1 << 6
        static let maskedHeaders: UInt16 = 1 << 13
    }

    /// Validates the zip at `url`; throws the first structural problem found.
    func validate(fileAt url: URL) throws(ZipStructureError) -> Summary {
        let file: ZipFile
        do { file = try ZipFile(url: url) } catch { throw .unreadable("\(error)") }
        defer { file.close() }
        return try validate(file)
    }

    private func validate(_ file: ZipFile) throws(ZipStructureError) -> Summary {
        guard file.size >= Size.endRecord else { throw .truncated("\(file.size) bytes is smaller than any zip") }
        let end = try findEndRecord(in: file)
        let directory = try centralDirectoryBounds(end: end, in: file)
        let bytes = try file.read(at: directory.offset, count: directory.size)
        var entries: [EntrySpan] = []
        entries.reserveCapacity(Int(clamping: directory.entryCount))
        var position = 0
        var totalUncompressed: UInt64 = 0
        for index in 0..<Int(clamping: directory.entryCount) {
            var entry = try centralEntry(index: index, in: bytes, at: &position, directory: directory)
            try checkLocalHeader(of: &entry, in: file, directoryOffset: directory.offset)
            entries.append(EntrySpan(start: entry.localHeaderOffset, end: entry.dataEnd, name: entry.name))
            totalUncompressed = try checkedAdd(
                totalUncompressed, entry.uncompressedSize,
                .entrySizeInvalid(entry: entry.name, reason: "the total uncompressed size overflows"))
            guard totalUncompressed <= limits.maximumTotalUncompressedSize else {
                throw .entrySizeInvalid(
                    entry: entry.name,
                    reason: "the entries inflate to more than \(limits.maximumTotalUncompressedSize) bytes in total")
            }
        }
        guard position == bytes.count else {
            throw .entryCountInvalid(
                "\(directory.entryCount) entries declared but the central directory has \(bytes.count - position) "
                    + "bytes left after them")
        }
        // Overlapping entries are how a small zip claims to hold many large files (a "quine" bomb), and a
        // local header inside another entry's data could say anything.
        entries.sort { $0.start < $1.start }
        for (previous, next) in zip(entries, entries.dropFirst()) where previous.end > next.start {
            throw .entryOutOfBounds(entry: next.name, reason: "it overlaps '\(previous.name)'")
        }
        return Summary(
            fileSize: file.size, entryCount: entries.count, usesZIP64: end.zip64 != nil, identity: file.identity)
    }

    // MARK: - End records

    private struct EndRecord {
        var offset: UInt64
        var entryCount: UInt64
        var directorySize: UInt64
        var directoryOffset: UInt64
        /// Where the ZIP64 end record starts, when there is one: the central directory must end there.
        var zip64: UInt64?
    }

    /// Finds the end record the way ZIPFoundation does (the signature nearest the end of the file), but only in
    /// the last 64 KiB + 22 bytes where the format allows it, and then insists its comment reaches the end exactly.
    private func findEndRecord(in file: ZipFile) throws(ZipStructureError) -> EndRecord {
        let window = min(file.size, Size.endRecord + Size.maximumComment)
        let tailStart = file.size - window
        let tail = try file.read(at: tailStart, count: window)
        var candidate = tail.count - Int(Size.endRecord)
        var found: Int?
        while candidate >= 0 {
            if tail.u32(at: candidate) == Signature.endRecord {
                found = candidate
                break
            }
            candidate -= 1
        }
        guard let found else { throw .endRecordMissing }
        let offset = tailStart + UInt64(found)
        let disk = tail.u16(at: found + 4)
        let directoryDisk = tail.u16(at: found + 6)
        let entriesOnDisk = tail.u16(at: found + 8)
        let entries = tail.u16(at: found + 10)
        let directorySize = tail.u32(at: found + 12)
        let directoryOffset = tail.u32(at: found + 16)
        let commentLength = tail.u16(at: found + 20)
        guard offset + Size.endRecord + UInt64(commentLength) == file.size else {
            throw .endRecordInvalid(
                "its comment of \(commentLength) bytes does not end where the file ends (\(file.size) bytes)")
        }
        var record = EndRecord(
            offset: offset, entryCount: UInt64(entries), directorySize: UInt64(directorySize),
            directoryOffset: UInt64(directoryOffset), zip64: nil)
        if let zip64 = try zip64EndRecord(before: offset, in: file) {
            // Each classic field must either defer to ZIP64 (all ones) or agree with it, so no reader can pick a
            // different value than the one validated here.
            guard disk == 0 || disk == 0xFFFF, directoryDisk == 0 || directoryDisk == 0xFFFF else {
                throw .multiDiskArchive
            }
            guard entries == 0xFFFF || UInt64(entries) == zip64.entryCount,
                entriesOnDisk == 0xFFFF || UInt64(entriesOnDisk) == zip64.entryCount,
                directorySize == 0xFFFF_FFFF || UInt64(directorySize) == zip64.directorySize,
                directoryOffset == 0xFFFF_FFFF || UInt64(directoryOffset) == zip64.directoryOffset
            else { throw .endRecordInvalid("the classic end record contradicts the ZIP64 end record") }
            record = zip64
        } else {
            guard disk == 0, directoryDisk == 0 else { throw .multiDiskArchive }
            guard entriesOnDisk == entries else {
                throw .entryCountInvalid("\(entriesOnDisk) entries on this disk but \(entries) in total")
            }
        }
        return record
    }

    /// The ZIP64 end record, when a locator sits right before the end record (where ZIPFoundation looks for it).
    /// A locator that is there but wrong is refused rather than ignored: ZIPFoundation and other readers differ
    /// on when they fall back to the classic record.
    private func zip64EndRecord(before endOffset: UInt64, in file: ZipFile) throws(ZipStructureError)
        -> EndRecord?
    {
        guard endOffset >= Size.zip64Locator else { return nil }
        let locatorOffset = endOffset - Size.zip64Locator
        let locator = try file.read(at: locatorOffset, count: Size.zip64Locator)
        guard locator.u32(at: 0) == Signature.zip64Locator else { return nil }
        guard locator.u32(at: 4) == 0, locator.u32(at: 16) <= 1 else { throw .multiDiskArchive }
        // ZIPFoundation reads the record immediately before the locator and ignores the offset stored here, so
        // anything else (extensible data, a record elsewhere) would be validated in one place and used in another.
        guard locatorOffset > Size.zip64EndRecord,
            locator.u64(at: 8) == locatorOffset - Size.zip64EndRecord
        else {
            throw .endRecordInvalid(
                "the ZIP64 locator points to \(locator.u64(at: 8)), not to the record right before it")
        }
        let recordOffset = locatorOffset - Size.zip64EndRecord
        let record = try file.read(at: recordOffset, count: Size.zip64EndRecord)
        guard record.u32(at: 0) == Signature.zip64EndRecord else {
            throw .endRecordInvalid("no ZIP64 end record where the locator points")
        }
        guard record.u64(at: 4) == Size.zip64EndRecord - 12 else {
            throw .endRecordInvalid("the ZIP64 end record declares \(record.u64(at: 4)) bytes, not 44")
        }
        // ZIPFoundation ignores a ZIP64 record that needs less than version 4.5 and falls back: refuse instead.
        guard record.u16(at: 14) >= 45 else {
            throw .endRecordInvalid("the ZIP64 end record needs version \(record.u16(at: 14)), not 4.5")
        }
        guard record.u32(at: 16) == 0, record.u32(at: 20) == 0 else { throw .multiDiskArchive }
        let entriesOnDisk = record.u64(at: 24)
        let entries = record.u64(at: 32)
        guard entriesOnDisk == entries else {
            throw .entryCountInvalid("\(entriesOnDisk) entries on this disk but \(entries) in total")
        }
        return EndRecord(
            offset: recordOffset, entryCount: entries, directorySize: record.u64(at: 40),
            directoryOffset: record.u64(at: 48), zip64: recordOffset)
    }

    // MARK: - Central directory

    private struct DirectoryBounds {
        var offset: UInt64
        var size: UInt64
        var entryCount: UInt64
    }

    /// The central directory must end exactly where the end records start, and hold at least 46 bytes per entry.
    private func centralDirectoryBounds(end: EndRecord, in file: ZipFile) throws(ZipStructureError)
        -> DirectoryBounds
    {
        let directoryEnd = try checkedAdd(
            end.directoryOffset, end.directorySize,
            .centralDirectoryInvalid("offset \(end.directoryOffset) + size \(end.directorySize) overflows"))
        guard directoryEnd == end.offset else {
            throw .centralDirectoryInvalid(
                "it spans \(end.directoryOffset)..<\(directoryEnd) but the end record is at \(end.offset)")
        }
        guard end.directorySize <= limits.maximumCentralDirectorySize else {
            throw .centralDirectoryInvalid("\(end.directorySize) bytes is more than any package needs")
        }
        guard end.entryCount <= limits.maximumEntryCount else {
            throw .entryCountInvalid("\(end.entryCount) entries is more than any package holds")
        }
        let (minimum, overflow) = end.entryCount.multipliedReportingOverflow(by: UInt64(Size.centralHeader))
        guard !overflow, minimum <= end.directorySize else {
            throw .entryCountInvalid(
                "\(end.entryCount) entries cannot fit in a central directory of \(end.directorySize) bytes")
        }
        return DirectoryBounds(offset: end.directoryOffset, size: end.directorySize, entryCount: end.entryCount)
    }

    private struct CentralEntry {
        var name: String
        var nameBytes: ArraySlice<UInt8>
        var flags: UInt16
        var method: UInt16
        var crc32: UInt32
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var localHeaderOffset: UInt64
        /// Set once the local header has been read.
        var dataEnd: UInt64 = 0
    }

    private func centralEntry(
        index: Int, in bytes: [UInt8], at position: inout Int, directory: DirectoryBounds
    ) throws(ZipStructureError) -> CentralEntry {
        let start = position
        guard bytes.count - start >= Size.centralHeader else {
            throw .entryCountInvalid("the central directory ends inside header \(index)")
        }
        guard bytes.u32(at: start) == Signature.centralHeader else {
            throw .centralHeaderInvalid(index: index, reason: "bad signature")
        }
        let flags = bytes.u16(at: start + 8)
        let method = bytes.u16(at: start + 10)
        let crc32 = bytes.u32(at: start + 16)
        let compressed32 = bytes.u32(at: start + 20)
        let uncompressed32 = bytes.u32(at: start + 24)
        let nameLength = Int(bytes.u16(at: start + 28))
        let extraLength = Int(bytes.u16(at: start + 30))
        let commentLength = Int(bytes.u16(at: start + 32))
        let disk = bytes.u16(at: start + 34)
        let offset32 = bytes.u32(at: start + 42)
        let variable = nameLength + extraLength + commentLength
        guard bytes.count - start - Size.centralHeader >= variable else {
            throw .centralHeaderInvalid(index: index, reason: "its name, extra field and comment overrun the directory")
        }
        guard nameLength > 0 else { throw .centralHeaderInvalid(index: index, reason: "empty name") }
        let nameStart = start + Size.centralHeader
        let nameBytes = bytes[nameStart..<nameStart + nameLength]
        let name = Self.displayName(nameBytes)
        let extra = bytes[nameStart + nameLength..<nameStart + nameLength + extraLength]
        position = nameStart + variable

        if flags & (Flag.encrypted | Flag.strongEncryption | Flag.maskedHeaders) != 0 {
            throw .encryptedEntry(name)
        }
        if flags & Flag.dataDescriptor != 0 { throw .dataDescriptorEntry(name) }
        if flags & Flag.patchedData != 0 {
            throw .centralHeaderInvalid(index: index, reason: "'\(name)' is patch data")
        }
        guard method == 0 || method == 8 else { throw .unsupportedCompressionMethod(entry: name, method: method) }
        guard disk == 0 else { throw .multiDiskArchive }

        // ZIPFoundation takes a ZIP64 value exactly for the fields whose classic value is all ones, in this
        // order, and only when the ZIP64 field has exactly those; it falls back to the classic value for a zero.
        let zip64 = try Self.zip64Field(in: extra, entry: name)
        var wanted: [String] = []
        if uncompressed32 == 0xFFFF_FFFF { wanted.append("uncompressed size") }
        if compressed32 == 0xFFFF_FFFF { wanted.append("compressed size") }
        if offset32 == 0xFFFF_FFFF { wanted.append("local header offset") }
        let values = try Self.zip64Values(zip64, wanted: wanted, entry: name)
        var next = values.makeIterator()
        let uncompressed = uncompressed32 == 0xFFFF_FFFF ? next.next() ?? 0 : UInt64(uncompressed32)
        let compressed = compressed32 == 0xFFFF_FFFF ? next.next() ?? 0 : UInt64(compressed32)
        let offset = offset32 == 0xFFFF_FFFF ? next.next() ?? 0 : UInt64(offset32)

        try checkSizes(name: name, method: method, compressed: compressed, uncompressed: uncompressed)
        return CentralEntry(
            name: name, nameBytes: nameBytes, flags: flags, method: method, crc32: crc32,
            compressedSize: compressed, uncompressedSize: uncompressed, localHeaderOffset: offset)
    }

    /// Sizes no honest entry can have: a stored entry whose sizes differ (the cause of the endless extraction,
    /// where ZIPFoundation keeps reading past the end of the file), or a deflated one claiming more than
    /// deflate's maximum ratio.
    private func checkSizes(name: String, method: UInt16, compressed: UInt64, uncompressed: UInt64)
        throws(ZipStructureError)
    {
        if method == 0 {
            guard compressed == uncompressed else {
                throw .entrySizeInvalid(
                    entry: name, reason: "stored with \(compressed) bytes but \(uncompressed) bytes uncompressed")
            }
        } else {
            let (bound, overflow) = compressed.multipliedReportingOverflow(by: limits.maximumDeflateRatio)
            guard !overflow, uncompressed <= bound else {
                throw .entrySizeInvalid(
                    entry: name, reason: "\(compressed) deflated bytes cannot inflate to \(uncompressed) bytes")
            }
        }
    }

    // MARK: - Local headers

    /// The local header must be where the central directory says, agree with it on everything ZIPFoundation
    /// reads from either, and be followed by the entry's bytes before the central directory starts.
    private func checkLocalHeader(of entry: inout CentralEntry, in file: ZipFile, directoryOffset: UInt64)
        throws(ZipStructureError)
    {
        let name = entry.name
        let headerEnd = try checkedAdd(
            entry.localHeaderOffset, Size.localHeader,
            .entryOutOfBounds(entry: name, reason: "its local header offset overflows"))
        guard headerEnd <= directoryOffset else {
            throw .entryOutOfBounds(
                entry: name,
                reason: "its local header at \(entry.localHeaderOffset) is not before the central directory")
        }
        let header = try file.read(at: entry.localHeaderOffset, count: Size.localHeader)
        guard header.u32(at: 0) == Signature.localHeader else {
            throw .localHeaderInvalid(entry: name, reason: "no local header signature at \(entry.localHeaderOffset)")
        }
        guard header.u16(at: 6) == entry.flags else {
            throw .localHeaderInvalid(entry: name, reason: "its flags differ from the central directory's")
        }
        guard header.u16(at: 8) == entry.method else {
            throw .localHeaderInvalid(
                entry: name, reason: "its compression method differs from the central directory's")
        }
        guard header.u32(at: 14) == entry.crc32 else {
            throw .localHeaderInvalid(entry: name, reason: "its CRC-32 differs from the central directory's")
        }
        let compressed32 = header.u32(at: 18)
        let uncompressed32 = header.u32(at: 22)
        let nameLength = UInt64(header.u16(at: 26))
        let extraLength = UInt64(header.u16(at: 28))
        guard nameLength == UInt64(entry.nameBytes.count) else {
            throw .localHeaderInvalid(entry: name, reason: "its name length differs from the central directory's")
        }
        let dataStart = headerEnd + nameLength + extraLength  // headerEnd <= directoryOffset <= file size
        guard dataStart <= directoryOffset else {
            throw .entryOutOfBounds(
                entry: name, reason: "its local name and extra field run into the central directory")
        }
        let variable = try file.read(at: headerEnd, count: nameLength + extraLength)
        guard variable[0..<Int(nameLength)].elementsEqual(entry.nameBytes) else {
            throw .localHeaderInvalid(entry: name, reason: "its name differs from the central directory's")
        }
        let zip64 = try Self.zip64Field(in: variable[Int(nameLength)...], entry: name)
        var wanted: [String] = []
        if uncompressed32 == 0xFFFF_FFFF { wanted.append("uncompressed size") }
        if compressed32 == 0xFFFF_FFFF { wanted.append("compressed size") }
        let values = try Self.zip64Values(zip64, wanted: wanted, entry: name)
        var next = values.makeIterator()
        let uncompressed = uncompressed32 == 0xFFFF_FFFF ? next.next() ?? 0 : UInt64(uncompressed32)
        let compressed = compressed32 == 0xFFFF_FFFF ? next.next() ?? 0 : UInt64(compressed32)
        guard compressed == entry.compressedSize, uncompressed == entry.uncompressedSize else {
            throw .localHeaderInvalid(entry: name, reason: "its sizes differ from the central directory's")
        }
        let dataEnd = try checkedAdd(
            dataStart, entry.compressedSize, .entryOutOfBounds(entry: name, reason: "its end offset overflows"))
        guard dataEnd <= directoryOffset else {
            throw .entryOutOfBounds(
                entry: name,
                reason:
                    "its \(entry.compressedSize) bytes from \(dataStart) run past the start of the central directory")
        }
        entry.dataEnd = dataEnd
    }

    // MARK: - Extra fields

    /// Walks the extra fields; they must tile the extra area exactly, with at most one ZIP64 field (0x0001).
    /// Returns the ZIP64 field's data, if any.
    private static func zip64Field(in extra: ArraySlice<UInt8>, entry: String) throws(ZipStructureError)
        -> ArraySlice<UInt8>?
    {
        var position = extra.startIndex
        var zip64: ArraySlice<UInt8>?
        while position < extra.endIndex {
            guard extra.endIndex - position >= 4 else {
                throw .extraFieldInvalid(entry: entry, reason: "a truncated extra field header")
            }
            let id = extra.u16(at: position)
            let length = Int(extra.u16(at: position + 2))
            guard extra.endIndex - position - 4 >= length else {
                throw .extraFieldInvalid(entry: entry, reason: "extra field 0x\(String(id, radix: 16)) overruns")
            }
            if id == 0x0001 {
                guard zip64 == nil else { throw .extraFieldInvalid(entry: entry, reason: "two ZIP64 fields") }
                zip64 = extra[position + 4..<position + 4 + length]
            }
            position += 4 + length
        }
        return zip64
    }

    /// The ZIP64 values for `wanted` (in order). The field must hold exactly those, each non-zero: with any other
    /// length ZIPFoundation ignores it and uses the all-ones classic value, and it treats zero as absent.
    private static func zip64Values(_ field: ArraySlice<UInt8>?, wanted: [String], entry: String)
        throws(ZipStructureError) -> [UInt64]
    {
        guard let field else {
            if let first = wanted.first {
                throw .extraFieldInvalid(entry: entry, reason: "its \(first) defers to a ZIP64 field it lacks")
            }
            return []
        }
        guard field.count == wanted.count * 8 else {
            throw .extraFieldInvalid(
                entry: entry,
                reason:
                    "its ZIP64 field has \(field.count) bytes for \(wanted.count) values (\(wanted.joined(separator: ", ")))"
            )
        }
        var values: [UInt64] = []
        for (index, what) in wanted.enumerated() {
            let value = field.u64(at: field.startIndex + index * 8)
            guard value != 0 else {
                throw .extraFieldInvalid(entry: entry, reason: "its ZIP64 \(what) is zero")
            }
            values.append(value)
        }
        return values
    }

    // MARK: - Helpers

    private struct EntrySpan {
        var start: UInt64
        var end: UInt64
        var name: String
    }

    private func checkedAdd(_ lhs: UInt64, _ rhs: UInt64, _ error: ZipStructureError) throws(ZipStructureError)
        -> UInt64
    {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        if overflow { throw error }
        return sum
    }

    /// Names go into error messages and logs: decoded leniently and cut short, since they are attacker-chosen.
    private static func displayName(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(200), as: UTF8.self)
        return bytes.count > 200 ? text + "…" : text
    }
}

/// Positional reads of a file that fail (as `truncated`) rather than come back short, so no structure is ever
/// parsed from fewer bytes than it has.
private final class ZipFile {
    let size: UInt64
    let identity: ZipFileIdentity?
    private let handle: FileHandle

    init(url: URL) throws {
        handle = try FileHandle(forReadingFrom: url)
        identity = ZipFileIdentity(descriptor: handle.fileDescriptor)
        do { size = try handle.seekToEnd() } catch {
            try? handle.close()
            throw error
        }
    }

    func close() { try? handle.close() }

    func read(at offset: UInt64, count: UInt64) throws(ZipStructureError) -> [UInt8] {
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard !overflow, end <= size else {
            throw .truncated("\(count) bytes at \(offset) are past the end of the file (\(size) bytes)")
        }
        guard count > 0 else { return [] }
        // One `pread` per structure: seeking and reading through `FileHandle`, twice per entry, cost more than
        // the checks themselves.
        let descriptor = handle.fileDescriptor
        var failure: ZipStructureError?
        let bytes = [UInt8](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            while initialized < buffer.count {
                let position = off_t(offset) + off_t(initialized)
                let result = pread(descriptor, base + initialized, buffer.count - initialized, position)
                if result < 0 && errno == EINTR { continue }
                if result < 0 {
                    failure = .unreadable(String(cString: strerror(errno)))
                    return
                }
                if result == 0 {
                    failure = .truncated("the file ended while reading \(count) bytes at \(offset)")
                    return
                }
                initialized += result
            }
        }
        if let failure { throw failure }
        return bytes
    }
}

/// Which file, in which state: device, inode, size and modification time. The validator and ZIPFoundation open
/// the path separately, so a file replaced or rewritten in between (a `hybrid serve` directory being published
/// into) would be validated in one version and read in another; comparing identities catches that.
struct ZipFileIdentity: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64

    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    private init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
        modifiedSeconds = Int64(status.st_mtimespec.tv_sec)
        modifiedNanoseconds = Int64(status.st_mtimespec.tv_nsec)
        #else
        modifiedSeconds = Int64(status.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(status.st_mtim.tv_nsec)
        #endif
    }
}

/// Little-endian integers at absolute indices; callers check bounds first (the checks above are what matter).
extension Collection where Element == UInt8, Index == Int {
    fileprivate func u16(at index: Int) -> UInt16 {
        UInt16(self[index]) | UInt16(self[index + 1]) << 8
    }

    fileprivate func u32(at index: Int) -> UInt32 {
        UInt32(u16(at: index)) | UInt32(u16(at: index + 2)) << 16
    }

    fileprivate func u64(at index: Int) -> UInt64 {
        UInt64(u32(at: index)) | UInt64(u32(at: index + 4)) << 32
    }
}
