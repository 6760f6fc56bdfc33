import Foundation
import ZIPFoundation

/// Raw deflate (RFC 1951) through ZIPFoundation's public helpers: zlib on Linux, the Compression framework on Apple
/// platforms, so the same bytes decode on both and no codec is added to the app.
enum DeltaCompression {
    /// Deflates `bytes` in memory (the publisher's side).
    static func deflate(_ bytes: [UInt8]) throws(DeltaError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count / 3 + 64)
        do {
            _ = try Data.compress(
                size: Int64(bytes.count), bufferSize: DeltaFormat.bufferSize,
                provider: { position, size in
                    let start = Int(position)
                    return Data(bytes[start..<min(start + size, bytes.count)])
                },
                consumer: { output.append(contentsOf: $0) })
        } catch {
            throw .compressionFailed("\(error)")
        }
        return output
    }

    /// The deflated size of `bytes`: what a file costs in a package zip, against which a delta is judged.
    static func deflatedSize(_ bytes: [UInt8]) throws(DeltaError) -> Int {
        try deflate(bytes).count
    }

    /// Inflates `body` and hands each decompressed chunk to `consumer`, which may throw to stop early.
    ///
    /// The provider always returns exactly the size asked for, zero-padded past the end, and throws `truncated`
    /// on the call after that: ZIPFoundation's Linux inflater tells zlib a full buffer is available whatever the
    /// provider returned (a short chunk would be read past its end) and loops until the end of the deflate stream
    /// (an empty chunk would loop forever). The padding is never taken for data: a complete stream ends before it,
    /// and the consumer refuses any output beyond the declared size.
    static func inflate(_ body: Data, consumer: (Data) throws -> Void) throws {
        var paddedCalls = 0
        // The consumer's own errors (a refused control triple, the sink's) are told apart from the inflater's:
        // only the latter mean corrupt deflate data.
        var consumerError: (any Error)?
        do {
            _ = try Data.decompress(
                size: Int64(body.count), bufferSize: DeltaFormat.bufferSize, skipCRC32: true,
                provider: { position, size in
                    let size = max(0, size)
                    let start = Int(clamping: position)
                    if start >= body.count {
                        paddedCalls += 1
                        if paddedCalls > 1 { throw DeltaError.truncated }
                        return Data(count: size)
                    }
                    let end = min(start + size, body.count)
                    var chunk = body.subdata(in: (body.startIndex + start)..<(body.startIndex + end))
                    if chunk.count < size { chunk.append(Data(count: size - chunk.count)) }
                    return chunk
                },
                consumer: { chunk in
                    do { try consumer(chunk) } catch {
                        consumerError = error
                        throw error
                    }
                })
        } catch {
            if let consumerError { throw consumerError }
            if let deltaError = error as? DeltaError { throw deltaError }
            throw DeltaError.corruptStream
        }
    }
}
