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
        .stream(SourceChunks(source: source), length: .known(Int64(source.count)))
    }
}

extension ProxyBody {
    /// The body for the client's delegate API, on `loop`: each write goes out as soon as its bytes are there and the
    /// last write is out (see ``ProxyBodyPump``).
    func writtenBody(on loop: any EventLoop) -> HTTPClient.Body {
        let source = source
        return .stream(contentLength: Int64(source.count)) { writer in
            let promise = loop.makePromise(of: Void.self)
            ProxyBodyPump(source: source, writer: writer, loop: loop, done: promise).pump(from: 0)
            return promise.futureResult
        }
    }

    private var source: any RequestBodySource {
        switch self {
        case .data(let data): DataBodySource(data: data)
        case .stream(let source): source
        }
    }
}

/// Writes a body to the client as its bytes become available: what is there (up to a chunk) goes out, and once
/// that write is out the next read takes what arrived meanwhile. A read of a body still arriving over the body
/// channel is answered by the write that brings its bytes and goes on from the loop, so the body reaches upstream
/// at the pace it arrives, with no task between the page's connection and upstream.
struct ProxyBodyPump: Sendable {
    let source: any RequestBodySource
    let writer: HTTPClient.Body.StreamWriter
    let loop: any EventLoop
    let done: EventLoopPromise<Void>

    func pump(from offset: Int) {
        guard offset < source.count else { return done.succeed() }
        // The bytes may come inside the store's lock (a failure is reported there): handled on the loop, never in
        // the caller's stack, whose locks the write's consequences (the request failing, the body released) take.
        source.bytes(at: offset, maxBytes: SourceChunks.chunkBytes) { read in
            loop.execute { write(read, at: offset) }
        }
    }

    private func write(_ read: Result<Data, any Error>, at offset: Int) {
        let bytes: Data
        switch read {
        case .success(let data): bytes = data
        case .failure(let error as CancellationError): return done.fail(error)
        case .failure(let error): return done.fail(ProxyError.requestBodyFailed("\(error)"))
        }
        guard !bytes.isEmpty else {
            return done.fail(ProxyError.requestBodyFailed("the body ended after \(offset) of \(source.count) bytes"))
        }
        writer.write(.byteBuffer(ByteBuffer(bytes: bytes))).whenComplete { written in
            switch written {
            case .success: pump(from: offset + bytes.count)
            case .failure(let error): done.fail(error)
            }
        }
    }
}

/// A body in hand as a `RequestBodySource`, so it goes out in slices like one still arriving.
struct DataBodySource: RequestBodySource {
    let data: Data
    var count: Int { data.count }

    func bytes(at offset: Int, maxBytes: Int) async throws -> Data {
        slice(at: offset, maxBytes: maxBytes)
    }

    /// At once: the bytes are in hand.
    func bytes(at offset: Int, maxBytes: Int, then handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        handler(.success(slice(at: offset, maxBytes: maxBytes)))
    }

    private func slice(at offset: Int, maxBytes: Int) -> Data {
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
