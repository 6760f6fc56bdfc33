import Foundation

/// What a release channel offers for one package: the signed part of `channels/<channel>/<id>.json`
/// (see docs/release-channel.md).
///
/// `sequence` only grows and `expiresAt` bounds how long the index may be believed, so a mirror or CDN can
/// neither hand a client an index older than one it already holds nor keep it on one forever.
public struct ReleaseIndex: Sendable, Hashable, Codable {
    public static let currentFormatVersion = 1

    public var formatVersion: Int
    public var id: String
    public var channel: String
    /// Grows by at least one with every index published for this package and channel.
    public var sequence: Int
    public var issuedAt: Date
    /// After this instant clients refuse the index; the publisher re-signs before it (`hybrid publish --refresh`).
    public var expiresAt: Date
    /// Newest version first; older releases stay listed for installs outside a rollout or on older hosts.
    public var releases: [ChannelRelease]

    public init(
        id: String, channel: String, sequence: Int, issuedAt: Date, expiresAt: Date, releases: [ChannelRelease]
    ) {
        formatVersion = Self.currentFormatVersion
        self.id = id
        self.channel = channel
        self.sequence = sequence
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.releases = releases
    }

    /// The canonical bytes that get signed: sorted keys, no whitespace, ISO 8601 dates to the second.
    func canonicalBytes() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    static func decode(_ data: Data) throws -> ReleaseIndex {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(ReleaseIndex.self, from: data)
    }
}

/// One version offered on a channel, with who may take it.
public struct ChannelRelease: Sendable, Hashable, Codable {
    public var version: String
    /// The full package; its URL is relative to the index's own URL (`../../files/<sha256>.zip`).
    public var full: ReleaseFile
    /// Diff packages to this version from earlier ones.
    public var diffs: [ReleaseDiff]
    /// Diff packages with binary deltas (manifest format 2) to this version, when any file benefits. Apart from
    /// ``diffs`` so a client that predates deltas ignores them and keeps taking the plain diffs.
    public var deltaDiffs: [ReleaseDiff]?
    /// Percentage (0–100) of installs offered this release, decided by `RolloutBucket`.
    public var rollout: Int
    /// Oldest host-app version that may take this release (it may call native modules older apps lack).
    public var minimumHostVersion: String?

    public init(
        version: String, full: ReleaseFile, diffs: [ReleaseDiff], rollout: Int, minimumHostVersion: String?,
        deltaDiffs: [ReleaseDiff]? = nil
    ) {
        self.version = version
        self.full = full
        self.diffs = diffs
        self.deltaDiffs = deltaDiffs
        self.rollout = rollout
        self.minimumHostVersion = minimumHostVersion
    }
}
