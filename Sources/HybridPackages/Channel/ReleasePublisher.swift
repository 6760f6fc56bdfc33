import Foundation

/// Writes and updates a release tree (`hybrid publish`): copies full packages under their SHA-256, derives
/// diffs from recent releases, and signs one index per package and channel with a sequence one above the
/// tree's current index and a fresh expiry.
public struct ReleasePublisher: Sendable {
    public struct Options: Sendable {
        public var channel: String
        /// Percentage (0–100) of installs offered the published versions.
        public var rollout: Int
        public var minimumHostVersion: SemanticVersion?
        /// How long clients may believe the index (until the next `--refresh`).
        public var validity: TimeInterval
        /// Diffs are built to each new version from this many earlier releases.
        public var diffBases: Int
        /// Releases kept listed in the index (newest first).
        public var keepReleases: Int
        /// Also build, per diff base, a diff with binary deltas (listed in `deltaDiffs`) where any file benefits.
        public var deltas: Bool

        public init(
            channel: String = "production", rollout: Int = 100, minimumHostVersion: SemanticVersion? = nil,
            validity: TimeInterval = 7 * 86_400, diffBases: Int = 3, keepReleases: Int = 5, deltas: Bool = true
        ) {
            self.deltas = deltas
            self.channel = channel
            self.rollout = rollout
            self.minimumHostVersion = minimumHostVersion
            self.validity = validity
            self.diffBases = diffBases
            self.keepReleases = keepReleases
        }
    }

    /// One index written.
    public struct Published: Sendable, Equatable {
        public var id: String
        public var sequence: Int
        public var versions: [String]
        public var diffs: Int
        public var path: String
    }

    /// Signs diff packages; its public half verifies every input.
    public let packageKey: PackageKeyPair
    /// Signs indexes.
    public let releaseKey: PackageKeyPair
    private let clock: any PackageClock
    private static let oldest = SemanticVersion(major: 0, minor: 0, patch: 0)

    public init(packageKey: PackageKeyPair, releaseKey: PackageKeyPair, clock: any PackageClock = SystemPackageClock())
    {
        self.packageKey = packageKey
        self.releaseKey = releaseKey
        self.clock = clock
    }

    /// Adds `packages` (full packages, any ids) to the tree at `root` on `options.channel`. A version already
    /// listed with the same bytes only gets the new rollout and minimum host version (how a rollout is widened).
    public func publish(_ packages: [URL], to root: URL, options: Options) throws(ReleasePublishError)
        -> [Published]
    {
        try validate(options)
        let layout = ReleaseTreeLayout(root: root)
        var byID: [String: [(manifest: PackageManifest, inspection: PackageInspection)]] = [:]
        for url in packages {
            let manifest: PackageManifest
            let inspection: PackageInspection
            do {
                manifest = try PackageVerifier(trustedKey: packageKey.verificationKey).verify(packageAt: url)
                inspection = try PackageInspector().inspect(packageAt: url)
            } catch { throw .packageRefused(path: url.path, reason: error.description) }
            guard manifest.diff == nil else { throw .diffGiven(path: url.path) }
            try copyImmutable(url, to: layout.file(sha256: inspection.sha256))
            byID[manifest.id, default: []].append((manifest, inspection))
        }
        var published: [Published] = []
        for id in byID.keys.sorted() {
            let indexURL = layout.index(channel: options.channel, id: id)
            let previous = try existingIndex(at: indexURL)
            var releases = previous?.releases ?? []
            var added: [String] = []
            var diffCount = 0
            for (manifest, inspection) in (byID[id] ?? []).sorted(by: { $0.manifest.version < $1.manifest.version }) {
                let version = manifest.version.description
                if let at = releases.firstIndex(where: { $0.version == version }) {
                    guard releases[at].full.sha256 == inspection.sha256 else {
                        throw .versionConflict(id: id, version: version)
                    }
                    releases[at].rollout = options.rollout
                    releases[at].minimumHostVersion = options.minimumHostVersion?.description
                    added.append(version)
                    continue
                }
                let bases = releases.compactMap { release -> (SemanticVersion, ChannelRelease)? in
                    guard let base = SemanticVersion(release.version), base < manifest.version else { return nil }
                    return (base, release)
                }.sorted { $0.0 > $1.0 }.prefix(options.diffBases)
                var diffs: [ReleaseDiff] = []
                var deltaDiffs: [ReleaseDiff] = []
                for (base, release) in bases {
                    let old = layout.file(sha256: release.full.sha256)
                    let new = layout.file(sha256: inspection.sha256)
                    if let plain = try buildDiff(from: old, to: new, base: base, deltas: false, layout: layout) {
                        diffs.append(plain)
                    }
                    // The plain diff stays for clients that predate deltas; the delta diff is listed only when
                    // some file actually travels as a delta.
                    if options.deltas,
                        let delta = try buildDiff(from: old, to: new, base: base, deltas: true, layout: layout)
                    {
                        deltaDiffs.append(delta)
                    }
                }
                diffCount += diffs.count + deltaDiffs.count
                releases.append(
                    ChannelRelease(
                        version: version,
                        full: ReleaseFile(
                            url: ReleaseTreeLayout.relativeFileURL(sha256: inspection.sha256),
                            size: inspection.size, sha256: inspection.sha256),
                        diffs: diffs, rollout: options.rollout,
                        minimumHostVersion: options.minimumHostVersion?.description,
                        deltaDiffs: deltaDiffs.isEmpty ? nil : deltaDiffs))
                added.append(version)
            }
            releases.sort {
                (SemanticVersion($0.version) ?? Self.oldest) > (SemanticVersion($1.version) ?? Self.oldest)
            }
            releases = Array(releases.prefix(options.keepReleases))
            let sequence = try writeIndex(
                id: id, releases: releases, previous: previous, at: indexURL, options: options)
            published.append(
                Published(id: id, sequence: sequence, versions: added, diffs: diffCount, path: indexURL.path))
        }
        return published
    }

    /// Re-signs every index on `channel` with the next sequence and a fresh expiry, changing nothing else: what
    /// a scheduled job runs well before `validity` ends so clients never see an expired index.
    public func refresh(_ root: URL, channel: String, validity: TimeInterval) throws(ReleasePublishError)
        -> [Published]
    {
        try validate(Options(channel: channel, validity: validity))
        let layout = ReleaseTreeLayout(root: root)
        let directory = layout.channelDirectory(channel)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") }.sorted()
        guard !names.isEmpty else { throw .nothingPublished(channel: channel) }
        var published: [Published] = []
        for name in names {
            let url = directory.appendingPathComponent(name)
            guard let previous = try existingIndex(at: url) else { continue }
            let sequence = try writeIndex(
                id: previous.id, releases: previous.releases, previous: previous, at: url,
                options: Options(channel: channel, validity: validity))
            published.append(Published(id: previous.id, sequence: sequence, versions: [], diffs: 0, path: url.path))
        }
        return published
    }

    private func validate(_ options: Options) throws(ReleasePublishError) {
        guard PackageIdentifier.isValid(options.channel) else {
            throw .invalidOption("Channel '\(options.channel)' is invalid: use letters, digits, '.', '_' or '-'.")
        }
        guard (0...100).contains(options.rollout) else {
            throw .invalidOption("Rollout \(options.rollout) is not a percentage from 0 to 100.")
        }
        guard options.validity >= 60, options.validity <= 366 * 86_400 else {
            throw .invalidOption("Validity must be between one minute and one year; clients refuse an index after it.")
        }
        guard options.diffBases >= 0, options.keepReleases >= 1 else {
            throw .invalidOption("--diffs must be ≥ 0 and --keep ≥ 1.")
        }
    }

    private func existingIndex(at url: URL) throws(ReleasePublishError) -> ReleaseIndex? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            let data = try Data(contentsOf: url)
            return try SignedReleaseIndex.open(data, trustedKey: releaseKey.verificationKey, source: url.path)
        } catch { throw .existingIndexUnusable(path: url.path, reason: "\(error)") }
    }

    private func writeIndex(
        id: String, releases: [ChannelRelease], previous: ReleaseIndex?, at url: URL, options: Options
    ) throws(ReleasePublishError) -> Int {
        let now = clock.now()
        let sequence = (previous?.sequence ?? 0) + 1
        let index = ReleaseIndex(
            id: id, channel: options.channel, sequence: sequence, issuedAt: now,
            expiresAt: now.addingTimeInterval(options.validity), releases: releases)
        do {
            let data = try SignedReleaseIndex.sign(index, with: releaseKey).encoded()
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try DurableFiles.atomicWrite(data, to: url)
        } catch { throw .fileSystem(path: url.path, reason: "\(error)") }
        return sequence
    }

    /// Builds one diff into the tree; with `deltas`, nil when no file travels as a delta (the plain diff is
    /// the same bytes of content).
    private func buildDiff(
        from old: URL, to new: URL, base: SemanticVersion, deltas: Bool, layout: ReleaseTreeLayout
    ) throws(ReleasePublishError) -> ReleaseDiff? {
        let temporary = layout.filesDirectory.appendingPathComponent(".diff-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: temporary) }
        do {
            let manifest = try PackageDiffBuilder().buildDiff(
                from: old, to: new, keyPair: packageKey, output: temporary, deltas: deltas)
            if deltas, manifest.diff?.deltas == nil { return nil }
            let (hex, size) = try FileHashing.sha256(of: temporary)
            try copyImmutable(temporary, to: layout.file(sha256: hex))
            return ReleaseDiff(
                from: base.description, url: ReleaseTreeLayout.relativeFileURL(sha256: hex), size: size, sha256: hex)
        } catch let error as ReleasePublishError {
            throw error
        } catch {
            throw .packageRefused(path: old.path, reason: "building the diff to \(new.lastPathComponent): \(error)")
        }
    }

    /// Content-named files are never rewritten: one that exists already has these bytes.
    private func copyImmutable(_ source: URL, to target: URL) throws(ReleasePublishError) {
        let fileManager = FileManager.default
        guard !fileManager.fileExists(atPath: target.path) else { return }
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".copy-\(UUID().uuidString)")
        do {
            try fileManager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fileManager.copyItem(at: source, to: temporary)
            try fileManager.moveItem(at: temporary, to: target)
        } catch {
            try? fileManager.removeItem(at: temporary)
            throw .fileSystem(path: target.path, reason: "\(error)")
        }
    }
}
