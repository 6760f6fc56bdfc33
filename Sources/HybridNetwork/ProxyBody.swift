import AsyncHTTPClient
import Foundation
import HybridKit
import NIOCore

/// A request body as the proxy sends it: bytes in hand, or a stream read from the start for every send (a
/// 307/308 redirect sends it again), so the stored bytes are never copied whole into the client.
enum ProxyBody: Sendable {
    case data(Data)
    case stream(any RequestBodySource)

    /// In slices with the length known up front, bytes in hand too: a `ByteBuffer` of the whole body would be a
    /// second copy of it.
    var clientBody: HTTPClientRequest.Body {
        let source: any RequestBodySource =
            switch self {
            case .data(let data): DataBodySource(data: data)
            case .stream(let source): source
            }
        return .stream(SourceChunks(source: source), length: .known(Int64(source.count)))
    }
}

/// A body in hand as a `RequestBodySource`, so it goes out in slices like one still arriving.
struct DataBodySource: RequestBodySource {
    let data: Data
    var count: Int { data.count }

    func bytes(at offset: Int, maxBytes: Int) async throws -> Data {
        guard offset < data.count, maxBytes > 0 else { return Data() }
        let start = data.startIndex + offset
        return data[start..<min(data.endIndex, start + maxBytes)]
    }
}

/// The chunks of a streamed body from its first byte, as the client pulls them.
struct SourceChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    /// Large enough to keep the socket busy, small enough that the client holds little at a time.
    static let chunkBytes = 256 << 10
    let source: any RequestBodySource

    struct AsyncIterator: AsyncIteratorProtocol {
        let source: any RequestBodySource
        var offset = 0

        mutating func next() async throws -> ByteBuffer? {
            guard offset < source.count else { return nil }
            let bytes: Data
            do {
                bytes = try await source.bytes(at: offset, maxBytes: SourceChunks.chunkBytes)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw ProxyError.requestBodyFailed("\(error)")
            }
            guard !bytes.isEmpty else {
                throw ProxyError.requestBodyFailed("the body ended after \(offset) of \(source.count) bytes")
            }
            offset += bytes.count
            return ByteBuffer(bytes: bytes)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: source) }
}
