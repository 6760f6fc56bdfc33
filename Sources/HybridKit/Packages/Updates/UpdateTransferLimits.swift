/// What the update clients allow a server, whoever stands between the app and the release host (a CDN, a mirror,
/// a captive portal): how long a request and a whole check may take, and how large a document may be. URLSession's
/// own timeouts do not bound a server that keeps sending (its request timeout is an idle timeout, reset by every
/// byte; its resource timeout is days), and `data(for:)` reads a body whole before anyone can look at its size.
public struct UpdateTransferLimits: Sendable, Hashable {
    /// From sending a request to the last byte of its answer. A server dripping a byte a second is cut here.
    public var requestTimeout: Duration
    /// One whole update check (`latestRelease`, `currentIndex`), whatever requests it makes.
    public var checkTimeout: Duration
    /// The largest release document or index body read; larger ones are refused while they arrive.
    public var maximumDocumentBytes: Int

    /// - Parameters:
    ///   - requestTimeout: 30 s: a range is at most `PackageDownloader.chunkSize` (1 MiB by default), an index a
    ///     few KB, so a request still unanswered after 30 s is stuck or stalled on purpose.
    ///   - checkTimeout: 60 s for a whole check.
    ///   - maximumDocumentBytes: 1 MiB, what `ReleaseChannelReader` accepts for an index.
    public init(
        requestTimeout: Duration = .seconds(30), checkTimeout: Duration = .seconds(60),
        maximumDocumentBytes: Int = 1 << 20
    ) {
        self.requestTimeout = requestTimeout
        self.checkTimeout = checkTimeout
        self.maximumDocumentBytes = maximumDocumentBytes
    }
}
