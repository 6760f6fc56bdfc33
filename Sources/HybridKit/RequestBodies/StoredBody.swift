import Foundation

/// A body claimed from the ``BodyStore`` by the request that sends it, readable while the page is still uploading
/// it. The bytes live as long as this object (a redirect may send them again); dropping it before the upload
/// completed discards the rest of the upload, so an abandoned request frees the store.
public final class StoredBody: RequestBodySource {
    /// The Content-Type the body was serialized with (multipart boundary included), if any.
    public let contentType: String?
    private let buffer: BodyBuffer
    private let onRelease: @Sendable () -> Void

    init(buffer: BodyBuffer, contentType: String?, onRelease: @escaping @Sendable () -> Void) {
        self.buffer = buffer
        self.contentType = contentType
        self.onRelease = onRelease
    }

    deinit { onRelease() }

    /// The request that sends this body ended: if the upload is still going, the store drops the body, refuses the
    /// rest of it and fails any read still waiting. Reads can outlive the request (the HTTP client pulls the body
    /// from a task of its own, which the request's cancellation does not reach), so the owner calls this when the
    /// request ends rather than waiting for this object to go away.
    public func release() { onRelease() }

    public var count: Int { buffer.size }
    public var isComplete: Bool { buffer.isComplete }
    /// The whole body if every byte arrived (shares the stored bytes, no copy).
    public var completeData: Data? { buffer.completeData }

    /// The whole body once every byte arrived (no copy). Throws as ``bytes(at:maxBytes:)`` does.
    public func complete() async throws -> Data {
        if count > 0 { _ = try await buffer.bytes(at: count - 1, maxBytes: 1) }
        guard let data = buffer.completeData else {
            throw BodyStoreError.incomplete(received: buffer.received, expected: count)
        }
        return data
    }

    public func bytes(at offset: Int, maxBytes: Int) async throws -> Data {
        try await buffer.bytes(at: offset, maxBytes: maxBytes)
    }
}
