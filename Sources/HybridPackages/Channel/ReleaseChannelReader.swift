import Foundation
import Synchronization

/// The client's rules for a release channel, without the transport: an index is believed only when it is
/// signed by the release key, names the asked-for package and channel, is not older than (or different at the
/// same sequence from) the one this install accepted before, and has not expired by the injected clock. The
/// accepted index is kept in the store so the sequence floor survives restarts and a 304 can be answered.
public final class ReleaseChannelReader: Sendable {
    /// A server's answer to a conditional index request.
    public enum Answer: Sendable {
        /// 200: the file's bytes and the `ETag` it came with.
        case fresh(Data, entityTag: String?)
        /// 304: the held index is still current.
        case notModified
    }

    /// An index lists a few releases with a few diffs each (a few KB); anything near this is not one, and is
    /// refused before it is parsed or kept in the store.
    public static let maximumIndexBytes = 1 << 20

    public let configuration: ReleaseChannelConfiguration
    public let storeRoot: URL
    /// The id that places this install in rollout buckets.
    public let installID: String
    private let clock: any PackageClock
    // Two checks of one package at once must not both raise the floor from the same old value.
    private let lock = Mutex<Void>(())

    /// - Parameters:
    ///   - storeRoot: the package store's root, where the last accepted index of each package is kept.
    ///   - configuration: the channel, the release key and the app's version.
    ///   - clock: judges expiry (tests pass their own).
    ///   - installID: the store's own id (`InstallIdentity`) unless given (simulations of many installs).
    public init(
        storeRoot: URL, configuration: ReleaseChannelConfiguration, clock: any PackageClock = SystemPackageClock(),
        installID: String? = nil
    ) throws(PackageError) {
        guard PackageIdentifier.isValid(configuration.channel) else {
            throw .manifestInvalid(
                "Channel name '\(configuration.channel)' is invalid: use letters, digits, '.', '_' or '-'.")
        }
        self.storeRoot = storeRoot
        self.configuration = configuration
        self.clock = clock
        if let installID {
            self.installID = installID
        } else {
            self.installID = try InstallIdentity.load(storeRoot: storeRoot)
        }
    }

    /// The `ETag` to send as `If-None-Match` for `id`'s index, when an index was accepted before.
    public func entityTag(for id: String) -> String? { checkpoint(id)?.entityTag }

    /// The highest sequence accepted for `id` (0 when none).
    public func acceptedSequence(for id: String) -> Int { checkpoint(id)?.sequence ?? 0 }

    /// Checks `answer` (fetched from `source`) and, when it holds, remembers it and returns the index.
    public func accept(_ answer: Answer, for id: String, source: String) throws(ReleaseIndexError)
        -> ReleaseIndex
    {
        try lock.withLock { (_: inout Void) throws(ReleaseIndexError) -> ReleaseIndex in
            let url = ChannelCheckpoint.url(storeRoot: storeRoot, channel: configuration.channel, id: id)
            let held = ChannelCheckpoint.load(from: url)
            switch answer {
            case .notModified:
                guard let held else {
                    throw .malformed(source: source, reason: "304 Not Modified, but no index was accepted before")
                }
                // Re-verified: the kept copy is a file on disk like any other.
                let index = try SignedReleaseIndex.open(
                    held.file, trustedKey: configuration.releaseKey, source: source)
                try check(index, id: id, source: source)
                return index
            case .fresh(let data, let entityTag):
                guard data.count <= Self.maximumIndexBytes else {
                    throw .malformed(
                        source: source,
                        reason: "\(data.count) bytes, more than an index may have (\(Self.maximumIndexBytes))")
                }
                let index = try SignedReleaseIndex.open(data, trustedKey: configuration.releaseKey, source: source)
                try check(index, id: id, source: source)
                let digest = ChannelCheckpoint.digest(data)
                if let held {
                    if index.sequence < held.sequence {
                        throw .rolledBack(source: source, held: held.sequence, offered: index.sequence)
                    }
                    if index.sequence == held.sequence, digest != held.sha256 {
                        throw .conflictingIndex(source: source, sequence: index.sequence)
                    }
                }
                let next = ChannelCheckpoint(
                    sequence: index.sequence, sha256: digest, entityTag: entityTag, file: data)
                if next != held {
                    do { try next.save(to: url) } catch { throw .storage(reason: "\(error)") }
                }
                return index
            }
        }
    }

    /// Judges an answer that carries no index (`status`, e.g. 404) for `id`, as `accept(.notModified…)` judges a
    /// 304: with no index accepted before, there is simply nothing published (nil). With one, the held copy is
    /// re-verified and, once it has expired, refused with `notServedAfterExpiry`, so a mirror cannot freeze an
    /// install on its last index by hiding the file. Before expiry the held index's expiry is returned and
    /// nothing is offered: a missing file is no reason to install anything.
    public func acceptMissing(for id: String, status: Int, source: String) throws(ReleaseIndexError) -> Date? {
        try lock.withLock { (_: inout Void) throws(ReleaseIndexError) -> Date? in
            let url = ChannelCheckpoint.url(storeRoot: storeRoot, channel: configuration.channel, id: id)
            guard let held = ChannelCheckpoint.load(from: url) else { return nil }
            let index = try SignedReleaseIndex.open(held.file, trustedKey: configuration.releaseKey, source: source)
            do throws(ReleaseIndexError) { try check(index, id: id, source: source) } catch {
                guard case .expired(_, let expiresAt, let now) = error else { throw error }
                throw .notServedAfterExpiry(source: source, status: status, expiresAt: expiresAt, now: now)
            }
            return index.expiresAt
        }
    }

    /// The newest release in `index` this install may take: not excluded, within its rollout bucket, and not
    /// needing a newer host. File URLs are resolved against `base`, the index's URL.
    public func eligibleRelease(
        in index: ReleaseIndex, relativeTo base: URL, excluding excluded: Set<SemanticVersion> = []
    ) throws(ReleaseIndexError) -> PackageRelease? {
        let source = base.absoluteString
        var candidates: [(SemanticVersion, ChannelRelease)] = []
        for release in index.releases {
            guard let version = SemanticVersion(release.version) else {
                throw .invalidRelease(source: source, reason: "version '\(release.version)' is not SemVer")
            }
            candidates.append((version, release))
        }
        for (version, release) in candidates.sorted(by: { $0.0 > $1.0 }) where !excluded.contains(version) {
            if let text = release.minimumHostVersion {
                guard let minimum = SemanticVersion(text) else {
                    throw .invalidRelease(source: source, reason: "minimum host version '\(text)' is not SemVer")
                }
                if configuration.hostVersion < minimum { continue }
            }
            let bucket = RolloutBucket(installID: installID, packageID: index.id, version: release.version)
            guard bucket.isIncluded(inPercent: release.rollout) else { continue }
            let document = ReleaseDocument(
                id: index.id, version: release.version, full: release.full, diffs: release.diffs,
                deltaDiffs: release.deltaDiffs)
            do { return try document.release(relativeTo: base) } catch {
                throw .invalidRelease(source: source, reason: error.description)
            }
        }
        return nil
    }

    private func check(_ index: ReleaseIndex, id: String, source: String) throws(ReleaseIndexError) {
        let expected = "\(id) on \(configuration.channel)"
        guard index.id == id, index.channel == configuration.channel else {
            throw .wrongTarget(source: source, expected: expected, got: "\(index.id) on \(index.channel)")
        }
        let now = clock.now()
        guard now < index.expiresAt else {
            throw .expired(source: source, expiresAt: index.expiresAt, now: now)
        }
    }

    private func checkpoint(_ id: String) -> ChannelCheckpoint? {
        ChannelCheckpoint.load(
            from: ChannelCheckpoint.url(storeRoot: storeRoot, channel: configuration.channel, id: id))
    }
}
