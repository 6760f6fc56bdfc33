import Foundation

/// A request body whose bytes may still be arriving (a page uploads it while native networking already sends it).
/// Readers start from any offset, as often as they need: a 307/308 redirect sends the body again from the start.
public protocol RequestBodySource: Sendable {
    /// The body's length, known up front (it is sent as Content-Length).
    var count: Int { get }
    /// Up to `maxBytes` bytes at `offset`, waiting until at least one of them arrived; empty at the end. Throws
    /// when the body can no longer complete (the page abandoned the upload) or the task is cancelled.
    func bytes(at offset: Int, maxBytes: Int) async throws -> Data
}
