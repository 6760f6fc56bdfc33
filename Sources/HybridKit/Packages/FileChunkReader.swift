import Foundation

/// Reads a byte range of a file in fixed-size chunks, one call at a time.
///
/// `@unchecked Sendable`: the handle and the count are only touched by the chain of reads the handler runs on
/// its read queue, each read scheduled after the previous chunk was handed to the engine, so never concurrently.
final class FileChunkReader: @unchecked Sendable {
    private let handle: FileHandle
    private var remaining: Int64
    private let chunkSize: Int

    /// Opens `url` and seeks to the first byte to serve.
    init(url: URL, range: ClosedRange<Int64>, chunkSize: Int) throws {
        handle = try FileHandle(forReadingFrom: url)
        do {
            try handle.seek(toOffset: UInt64(range.lowerBound))
        } catch {
            try? handle.close()
            throw error
        }
        remaining = range.upperBound - range.lowerBound + 1
        self.chunkSize = max(1, chunkSize)
    }

    var isDone: Bool { remaining <= 0 }

    /// The next chunk; throws when the file ends before the manifest said it would (the store is damaged).
    func next() throws -> Data {
        let count = Int(min(Int64(chunkSize), remaining))
        let data = try handle.read(upToCount: count) ?? Data()
        guard !data.isEmpty else { throw FileChunkReaderError.truncated }
        remaining -= Int64(data.count)
        return data
    }

    // Closed when the last chunk's closure lets go of the reader, whether it finished, failed or was stopped.
    deinit { try? handle.close() }
}

enum FileChunkReaderError: Error, CustomStringConvertible {
    case truncated
    var description: String { "the file ended early" }
}
