import Foundation

/// The limits every prefetch declaration is held to, whoever wrote it.
public struct PrefetchPolicy: Sendable, Equatable {
    /// Requests one page may declare.
    public var maximumRequestsPerPage: Int
    /// Pages one set of declarations may name.
    public var maximumPages: Int
    /// Prefetches in flight or waiting to be claimed at once, over all pages: the oldest are dropped beyond it.
    public var maximumEntries: Int
    /// Bytes a prefetched response may buffer before a page claims it; a larger one is dropped (and counted as
    /// waste), and the page fetches it itself.
    public var maximumResponseBytes: Int
    /// How long after it started a prefetch may answer the page.
    public var timeToLive: Duration
    /// How long a page's request waits for a prefetch in flight to get its response head before it goes to the
    /// network itself: a slow or endless prefetch costs the page at most this.
    public var claimWait: Duration
    /// Seconds a prefetch may wait for data before it fails.
    public var timeout: TimeInterval
    /// Whether URLs may name loopback, private or link-local addresses (development servers).
    public var allowsPrivateAddresses: Bool

    /// Template and filled-in value limits, in bytes.
    public static let maximumTemplateBytes = 2048
    public static let maximumDeclarationBytes = 256 * 1024
    static let maximumHeadersPerRequest = 16

    public init(
        maximumRequestsPerPage: Int = 8, maximumPages: Int = 64, maximumEntries: Int = 32,
        maximumResponseBytes: Int = 2 * 1024 * 1024, timeToLive: Duration = .seconds(30),
        claimWait: Duration = .seconds(2), timeout: TimeInterval = 15, allowsPrivateAddresses: Bool = false
    ) {
        self.maximumRequestsPerPage = maximumRequestsPerPage
        self.maximumPages = maximumPages
        self.maximumEntries = maximumEntries
        self.maximumResponseBytes = maximumResponseBytes
        self.timeToLive = timeToLive
        self.claimWait = claimWait
        self.timeout = timeout
        self.allowsPrivateAddresses = allowsPrivateAddresses
    }
}
