import Foundation

/// Applies a binary delta (format: docs/package-format.md, "Binary deltas") to a base, streaming the rebuilt file
/// to a sink.
///
/// The delta is untrusted: the signed manifest covers only the rebuilt file's SHA-256, which can be checked only
/// after decoding. So before a byte is written every control triple is checked (lengths neither negative nor past
/// the declared output, copies inside the base, seeks landing inside the base), the declared sizes must equal the
/// base's and the manifest's, and every triple after the first must write at least one byte, so decoding takes time
/// linear in the output size and memory for the base, the delta and fixed buffers, whatever the bytes say.
public struct DeltaDecoder: Sendable {
    public init() {}

    /// The largest delta accepted for an output of `outputSize` bytes. The encoder ships a delta only when it is at
    /// most 0.8× the deflated file, and deflate grows incompressible data by well under 1/64, so anything larger
    /// is not one of ours and is refused before it is decoded or held.
    public static func sizeLimit(outputSize: Int64) -> Int64 {
        let size = max(0, outputSize)
        return Int64(DeltaFormat.headerSize) + size + size / 64 + 4096
    }

    /// What can be checked of a delta without its base (`hybrid verify` of a diff): its size limit, its header, an
    /// output size equal to `expectedSize` and a body of the declared length. Decoding needs the base.
    public func checkWithoutBase(delta: Data, expectedSize: Int64) throws(DeltaError) {
        let limit = Self.sizeLimit(outputSize: expectedSize)
        guard Int64(delta.count) <= limit else { throw .tooLarge(size: Int64(delta.count), limit: limit) }
        let header = try DeltaFormat.Header.parse(delta.prefix(DeltaFormat.headerSize).map { $0 })
        guard header.outputSize == expectedSize else {
            throw .outputSizeMismatch(declared: header.outputSize, expected: expectedSize)
        }
        let bodySize = Int64(delta.count - DeltaFormat.headerSize)
        guard header.bodySize == bodySize else { throw header.bodySize > bodySize ? .truncated : .trailingData }
    }

    /// Rebuilds the file from `delta` and `base`, handing it to `sink` in chunks of at most 64 KiB.
    ///
    /// - Throws: ``DeltaError`` for anything wrong with the delta or a base it was not made from; errors thrown by
    ///   `sink` pass through unchanged.
    public func apply(delta: Data, base: Data, expectedSize: Int64, sink: (Data) throws -> Void) throws {
        let limit = Self.sizeLimit(outputSize: expectedSize)
        guard Int64(delta.count) <= limit else { throw DeltaError.tooLarge(size: Int64(delta.count), limit: limit) }
        let header = try DeltaFormat.Header.parse(delta.prefix(DeltaFormat.headerSize).map { $0 })
        guard header.baseSize == Int64(base.count) else {
            throw DeltaError.baseSizeMismatch(declared: header.baseSize, actual: Int64(base.count))
        }
        guard header.outputSize == expectedSize else {
            throw DeltaError.outputSizeMismatch(declared: header.outputSize, expected: expectedSize)
        }
        let bodySize = Int64(delta.count - DeltaFormat.headerSize)
        guard header.bodySize == bodySize else {
            throw header.bodySize > bodySize ? DeltaError.truncated : DeltaError.trailingData
        }
        let body = delta.subdata(in: (delta.startIndex + DeltaFormat.headerSize)..<delta.endIndex)
        try base.withUnsafeBytes { (baseBytes: UnsafeRawBufferPointer) in
            var machine = RecordMachine(base: baseBytes, outputSize: header.outputSize)
            try DeltaCompression.inflate(body) { chunk in try machine.consume(chunk, sink: sink) }
            try machine.finish(sink: sink)
        }
    }
}

/// Consumes the inflated record stream in whatever chunks the inflater produces.
private struct RecordMachine {
    private enum Phase {
        case control
        /// Reading a chunk's two varints (bytes equal to the base, bytes changed); `addLeft` bytes of the record's
        /// `add` are still to come, this chunk's included.
        case chunkHeader(addLeft: Int64)
        /// `chunkLeft` changed bytes of the current chunk to come, then `addLeft` more of the record's `add`.
        case changed(chunkLeft: Int64, addLeft: Int64)
        case extra(remaining: Int64)
        case done
    }

    let base: UnsafeRawBufferPointer
    let outputSize: Int64
    private var phase: Phase
    /// The control triple or chunk header being read: the numbers complete so far, and the varint in progress.
    private var fields: [UInt64] = []
    private var varint: UInt64 = 0
    private var varintBytes = 0
    private var written: Int64 = 0
    private var readPosition: Int64 = 0
    private var pendingExtra: Int64 = 0
    private var pendingSeek: Int64 = 0
    private var triples = 0
    /// A fixed buffer of `DeltaFormat.bufferSize` bytes, the first `outputCount` of them pending for the sink.
    private var output: [UInt8]
    private var outputCount = 0

    init(base: UnsafeRawBufferPointer, outputSize: Int64) {
        self.base = base
        self.outputSize = outputSize
        phase = outputSize == 0 ? .done : .control
        fields.reserveCapacity(3)
        output = [UInt8](repeating: 0, count: DeltaFormat.bufferSize)
    }

    mutating func consume(_ chunk: Data, sink: (Data) throws -> Void) throws {
        try chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var index = 0
            while index < bytes.count {
                switch phase {
                case .done:
                    throw DeltaError.trailingData
                case .control:
                    try readVarintByte(bytes[index])
                    index += 1
                    if fields.count == 3 { try startRecord() }
                case .chunkHeader(let addLeft):
                    try readVarintByte(bytes[index])
                    index += 1
                    if fields.count == 2 { try startChunk(addLeft: addLeft, sink: sink) }
                case .changed(let chunkLeft, let addLeft):
                    let take = Int(min(chunkLeft, Int64(bytes.count - index)))
                    let start = Int(readPosition)
                    var offset = 0
                    while offset < take {
                        let piece = min(take - offset, DeltaFormat.bufferSize - outputCount)
                        let at = outputCount
                        // Block-wise through pointers: with a byte per call this loop was most of the decoding time.
                        output.withUnsafeMutableBufferPointer { out in
                            for step in 0..<piece {
                                out[at + step] = bytes[index + offset + step] &+ base[start + offset + step]
                            }
                        }
                        outputCount += piece
                        offset += piece
                        if outputCount == DeltaFormat.bufferSize { try flush(sink) }
                    }
                    index += take
                    readPosition += Int64(take)
                    written += Int64(take)
                    let left = chunkLeft - Int64(take)
                    if left > 0 {
                        phase = .changed(chunkLeft: left, addLeft: addLeft)
                    } else if addLeft > 0 {
                        phase = .chunkHeader(addLeft: addLeft)
                    } else {
                        endAdd()
                    }
                case .extra(let remaining):
                    let take = Int(min(remaining, Int64(bytes.count - index)))
                    try append(from: bytes, at: index, count: take, sink: sink)
                    index += take
                    written += Int64(take)
                    let left = remaining - Int64(take)
                    if left > 0 { phase = .extra(remaining: left) } else { endRecord() }
                }
            }
        }
    }

    /// Copies `count` bytes of `source` from `offset` into the output buffer, flushing it whenever it fills.
    private mutating func append(
        from source: UnsafeRawBufferPointer, at offset: Int, count: Int, sink: (Data) throws -> Void
    ) throws {
        var done = 0
        while done < count {
            let piece = min(count - done, DeltaFormat.bufferSize - outputCount)
            let at = outputCount
            output.withUnsafeMutableBytes { out in
                guard let destination = out.baseAddress, let from = source.baseAddress else { return }
                (destination + at).copyMemory(from: from + offset + done, byteCount: piece)
            }
            outputCount += piece
            done += piece
            if outputCount == DeltaFormat.bufferSize { try flush(sink) }
        }
    }

    /// A chunk of `add`: its unchanged bytes are copied from the base at once (the record was checked to stay
    /// inside the base), its changed bytes follow in the stream.
    private mutating func startChunk(addLeft: Int64, sink: (Data) throws -> Void) throws {
        let same = fields[0]
        let changed = fields[1]
        fields.removeAll(keepingCapacity: true)
        let left = UInt64(addLeft)
        guard same <= left, changed <= left - same else {
            throw DeltaError.invalidControl("a chunk of triple \(triples - 1) is longer than its add")
        }
        guard same + changed > 0 else { throw DeltaError.invalidControl("a chunk of triple \(triples - 1) is empty") }
        try append(from: base, at: Int(readPosition), count: Int(same), sink: sink)
        readPosition += Int64(same)
        written += Int64(same)
        let rest = addLeft - Int64(same) - Int64(changed)
        if changed > 0 {
            phase = .changed(chunkLeft: Int64(changed), addLeft: rest)
        } else if rest > 0 {
            phase = .chunkHeader(addLeft: rest)
        } else {
            endAdd()
        }
    }

    /// Called when the inflater reached the end of the deflate stream: the output must be complete.
    mutating func finish(sink: (Data) throws -> Void) throws {
        guard case .done = phase else { throw DeltaError.truncated }
        try flush(sink)
    }

    private mutating func flush(_ sink: (Data) throws -> Void) throws {
        guard outputCount > 0 else { return }
        try sink(Data(output[0..<outputCount]))
        outputCount = 0
    }

    /// One byte of a LEB128 varint: at most 10 bytes, and the 10th may carry only the 64th bit.
    private mutating func readVarintByte(_ byte: UInt8) throws(DeltaError) {
        let payload = UInt64(byte & 0x7f)
        if varintBytes == DeltaFormat.maximumVarintSize - 1, payload > 1 {
            throw .invalidControl("triple \(triples) has a number larger than 64 bits")
        }
        varint |= payload << (7 * UInt64(varintBytes))
        varintBytes += 1
        guard byte & 0x80 != 0 else {
            fields.append(varint)
            varint = 0
            varintBytes = 0
            return
        }
        if varintBytes == DeltaFormat.maximumVarintSize {
            throw .invalidControl("triple \(triples) has a number longer than 10 bytes")
        }
    }

    /// Checks a complete control triple against the base and the declared output before any of its bytes is used.
    private mutating func startRecord() throws(DeltaError) {
        let add = fields[0]
        let extra = fields[1]
        let seek = DeltaFormat.unzigzag(fields[2])
        fields.removeAll(keepingCapacity: true)
        let outputLeft = UInt64(outputSize - written)
        guard add <= outputLeft else {
            throw .invalidControl("triple \(triples) adds \(add) bytes, past the declared output size")
        }
        guard extra <= outputLeft - add else {
            throw .invalidControl("triple \(triples) inserts \(extra) bytes, past the declared output size")
        }
        guard add <= UInt64(base.count) - UInt64(readPosition) else {
            throw .invalidControl("triple \(triples) reads \(add) bytes past the end of the base")
        }
        guard triples == 0 || add + extra > 0 else {
            throw .invalidControl("triple \(triples) writes nothing")
        }
        // Both sides fit in Int64 (sizes were checked against Int64.max), so these comparisons cannot overflow.
        let afterAdd = readPosition + Int64(add)
        guard seek >= -afterAdd, seek <= Int64(base.count) - afterAdd else {
            throw .invalidControl("triple \(triples) seeks by \(seek), outside the base")
        }
        triples += 1
        pendingExtra = Int64(extra)
        pendingSeek = seek
        if add > 0 { phase = .chunkHeader(addLeft: Int64(add)) } else { endAdd() }
    }

    private mutating func endAdd() {
        if pendingExtra > 0 { phase = .extra(remaining: pendingExtra) } else { endRecord() }
    }

    private mutating func endRecord() {
        readPosition += pendingSeek
        phase = written == outputSize ? .done : .control
    }
}
