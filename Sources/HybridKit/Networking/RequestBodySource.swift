import Foundation

/// A request body whose bytes may still be arriving (a page uploads it while native networking already sends it).
/// Readers start from any offset, as often as they need: a 307/308 redirect sends the body again from the start.
public protocol RequestBodySource: Sendable {
    /// The body's length, known up front (it is sent as Content-Length).
    var count: Int { get }
    /// Up to `maxBytes` bytes at `offset`, waiting until at least one of them arrived; empty at the end. Throws
    /// when the body can no longer complete (the page abandoned the upload) or the task is cancelled.
    func bytes(at offset: Int, maxBytes: Int) async throws -> Data
    /// The same read for a caller on an event loop: `handler` gets the bytes, or the failure, once (at once when
    /// bytes are there). A source that can call it on the thread that brings the bytes lets a relay keep pace
    /// with their arrival; by default it reads in a task. `handler` may run inside the source's callers' locks:
    /// it hands its work to the reader's own loop or queue rather than doing it there.
    func bytes(at offset: Int, maxBytes: Int, then handler: @escaping @Sendable (Result<Data, any Error>) -> Void)
}

extension RequestBodySource {
    public func bytes(
        at offset: Int, maxBytes: Int, then handler: @escaping @Sendable (Result<Data, any Error>) -> Void
    ) {
        Task {
            do {
                handler(.success(try await bytes(at: offset, maxBytes: maxBytes)))
            } catch {
                handler(.failure(error))
            }
        }
    }
}
