import Foundation
import HybridPackages
import Synchronization
import Testing

/// The release channel's rules without a server: publishing a tree, and what `ReleaseChannelReader` refuses.
@Suite struct ReleaseChannelTests {
    static let id = "com.example.shop"

    final class Tree {
        let fixture: Fixture
        let releaseKey = PackageKeyPair.generate()
        let clock = FixedClock(Date(timeIntervalSince1970: 1_800_000_000))
        var root: URL { fixture.url("tree") }

        init() throws { fixture = try Fixture() }

        var publisher: ReleasePublisher {
            ReleasePublisher(packageKey: fixture.keyPair, releaseKey: releaseKey, clock: clock)
        }

        func indexData(channel: String = "production") throws -> Data {
            try Data(contentsOf: ReleaseTreeLayout(root: root).index(channel: channel, id: ReleaseChannelTests.id))
        }

        func reader(host: String = "1.0.0", installID: String = "install-a", storeName: String = "client")
            throws -> ReleaseChannelReader
        {
            try ReleaseChannelReader(
                storeRoot: fixture.url(storeName),
                configuration: ReleaseChannelConfiguration(
                    releaseKey: releaseKey.verificationKey, hostVersion: try #require(SemanticVersion(host))),
                clock: clock, installID: installID)
        }
    }

    final class FixedClock: PackageClock {
        let date: Mutex<Date>
        init(_ date: Date) { self.date = Mutex(date) }
        func now() -> Date { date.withLock { $0 } }
        func set(_ value: Date) { date.withLock { $0 = value } }
    }

    // A literal that always parses.
    // swift-format-ignore: NeverForceUnwrap
    static let base = URL(string: "https://cdn.example.com/r/channels/production/com.example.shop.json")!

    func expectIndexError(
        _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation,
        _ matches: (ReleaseIndexError) -> Bool
    ) {
        do {
            try body()
            Issue.record("expected a ReleaseIndexError", sourceLocation: sourceLocation)
        } catch let error as ReleaseIndexError {
            #expect(matches(error), "got \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a ReleaseIndexError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    func expectPublishError(
        _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation,
        _ matches: (ReleasePublishError) -> Bool
    ) {
        do {
            try body()
            Issue.record("expected a ReleasePublishError", sourceLocation: sourceLocation)
        } catch let error as ReleasePublishError {
            #expect(matches(error), "got \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a ReleasePublishError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func publishWritesContentNamedFilesDiffsAndAGrowingSequence() throws {
        let tree = try Tree()
        let first = try tree.publisher.publish(
            [try tree.fixture.pack("1.0.0")], to: tree.root, options: .init())
        #expect(first.map(\.sequence) == [1])
        let second = try tree.publisher.publish(
            [try tree.fixture.pack("1.1.0"), try tree.fixture.pack("1.2.0")], to: tree.root,
            options: .init(rollout: 20, minimumHostVersion: SemanticVersion("3.0.0")))
        #expect(second.map(\.sequence) == [2])
        #expect(second.first?.versions == ["1.1.0", "1.2.0"])

        let index = try SignedReleaseIndex.open(
            try tree.indexData(), trustedKey: tree.releaseKey.verificationKey, source: "test")
        #expect(index.releases.map(\.version) == ["1.2.0", "1.1.0", "1.0.0"])
        let newest = try #require(index.releases.first)
        #expect(Set(newest.diffs.map(\.from)) == ["1.1.0", "1.0.0"])
        #expect(newest.rollout == 20 && newest.minimumHostVersion == "3.0.0")
        #expect(index.expiresAt == tree.clock.now().addingTimeInterval(7 * 86_400))
        // Every file the index names exists under its own SHA-256.
        for file in index.releases.flatMap({ [$0.full.sha256] + $0.diffs.map(\.sha256) }) {
            let url = ReleaseTreeLayout(root: tree.root).file(sha256: file)
            #expect(try PackageInspector().inspect(packageAt: url).sha256 == file)
        }
        #expect(newest.full.url == "../../files/\(newest.full.sha256).zip")

        // Re-publishing the same bytes widens the rollout only; other bytes under a published version are refused.
        let widened = try tree.publisher.publish(
            [tree.fixture.url("com.example.shop-1.2.0.zip")], to: tree.root, options: .init(rollout: 100))
        #expect(widened.first?.sequence == 3 && widened.first?.diffs == 0)
        let conflicting = try tree.fixture.pack("1.2.0", files: ["index.html": "other"])
        #expect(throws: ReleasePublishError.versionConflict(id: Self.id, version: "1.2.0")) {
            try tree.publisher.publish([conflicting], to: tree.root, options: .init())
        }
        // Refresh raises the sequence and moves the expiry, releases unchanged.
        tree.clock.set(tree.clock.now().addingTimeInterval(3600))
        let refreshed = try tree.publisher.refresh(tree.root, channel: "production", validity: 86_400)
        #expect(refreshed.first?.sequence == 4)
        let after = try SignedReleaseIndex.open(
            try tree.indexData(), trustedKey: tree.releaseKey.verificationKey, source: "test")
        #expect(after.releases.map(\.version) == ["1.2.0", "1.1.0", "1.0.0"])
        #expect(after.expiresAt == tree.clock.now().addingTimeInterval(86_400))
    }

    @Test func publisherRefusesBadInput() throws {
        let tree = try Tree()
        let package = try tree.fixture.pack("1.0.0")
        for options in [
            ReleasePublisher.Options(channel: "../etc"), .init(channel: ""), .init(rollout: 101), .init(rollout: -1),
            .init(validity: 1), .init(validity: 10 * 365 * 86_400), .init(keepReleases: 0), .init(diffBases: -1),
        ] {
            #expect(throws: ReleasePublishError.self) {
                try tree.publisher.publish([package], to: tree.root, options: options)
            }
        }
        // A package signed with another key, a diff package, a file that is no package.
        let foreign = try tree.fixture.pack("2.0.0", keyPair: PackageKeyPair.generate())
        expectPublishError({ try tree.publisher.publish([foreign], to: tree.root, options: .init()) }) {
            if case .packageRefused = $0 { true } else { false }
        }
        let diff = tree.fixture.url("diff.zip")
        try PackageDiffBuilder().buildDiff(
            from: package, to: try tree.fixture.pack("1.1.0"), keyPair: tree.fixture.keyPair, output: diff)
        #expect(throws: ReleasePublishError.diffGiven(path: diff.path)) {
            try tree.publisher.publish([diff], to: tree.root, options: .init())
        }
        let junk = tree.fixture.url("junk.zip")
        try Data("not a zip".utf8).write(to: junk)
        #expect(throws: ReleasePublishError.self) {
            try tree.publisher.publish([junk], to: tree.root, options: .init())
        }
        #expect(throws: ReleasePublishError.nothingPublished(channel: "production")) {
            try tree.publisher.refresh(tree.root, channel: "production", validity: 86_400)
        }
        // An index the release key does not vouch for is never built upon (its sequence cannot be trusted).
        try tree.publisher.publish([package], to: tree.root, options: .init())
        let indexURL = ReleaseTreeLayout(root: tree.root).index(channel: "production", id: Self.id)
        try Data("{}".utf8).write(to: indexURL)
        expectPublishError({ try tree.publisher.publish([package], to: tree.root, options: .init()) }) {
            if case .existingIndexUnusable = $0 { true } else { false }
        }
        #expect(FileManager.default.fileExists(atPath: tree.root.appendingPathComponent("files").path))
    }

    @Test func readerRefusesHostileIndexes() throws {
        let tree = try Tree()
        try tree.publisher.publish([try tree.fixture.pack("1.0.0")], to: tree.root, options: .init())
        let good = try tree.indexData()
        let reader = try tree.reader()
        let envelope = try JSONDecoder().decode(SignedReleaseIndex.self, from: good)
        let source = Self.base.absoluteString

        var hostile: [(String, Data, (ReleaseIndexError) -> Bool)] = []
        func isMalformed(_ error: ReleaseIndexError) -> Bool {
            if case .malformed = error { return true }
            return false
        }
        hostile.append(("empty", Data(), isMalformed))
        hostile.append(
            ("oversized", Data(repeating: 0x20, count: ReleaseChannelReader.maximumIndexBytes + 1), isMalformed))
        hostile.append(("not JSON", Data("<html>cdn error</html>".utf8), isMalformed))
        hostile.append(("JSON array", Data("[]".utf8), isMalformed))
        hostile.append(("huge number", Data(#"{"algorithm":"ed25519","index":1e999}"#.utf8), isMalformed))
        var otherAlgorithm = envelope
        otherAlgorithm.algorithm = "none"
        hostile.append(("algorithm none", try otherAlgorithm.encoded(), isMalformed))
        var truncated = envelope
        truncated.signature = truncated.signature.prefix(10)
        hostile.append(("short signature", try truncated.encoded(), { $0 == .signatureInvalid(source: source) }))
        var flipped = envelope
        flipped.index[flipped.index.startIndex + 5] ^= 0x01
        hostile.append(("flipped bit", try flipped.encoded(), { $0 == .signatureInvalid(source: source) }))
        var lyingKeyID = flipped
        lyingKeyID.keyID = "0000000000000000"
        hostile.append(
            ("lying key id", try lyingKeyID.encoded(), { if case .untrustedKey = $0 { true } else { false } }))
        // Validly signed bytes that are not an index, or an index of a format this client does not know.
        let notIndex = try SignedReleaseIndexSigner.sign(Data("{\"hello\":1}".utf8), with: tree.releaseKey)
        hostile.append(("signed non-index", notIndex, isMalformed))
        var future = try SignedReleaseIndex.open(good, trustedKey: tree.releaseKey.verificationKey, source: source)
        future.formatVersion = 2
        hostile.append(("format 2", try SignedReleaseIndex.sign(future, with: tree.releaseKey).encoded(), isMalformed))
        var otherPackage = try SignedReleaseIndex.open(
            good, trustedKey: tree.releaseKey.verificationKey, source: source)
        otherPackage.id = "com.example.other"
        hostile.append(
            (
                "other package", try SignedReleaseIndex.sign(otherPackage, with: tree.releaseKey).encoded(),
                { if case .wrongTarget = $0 { true } else { false } }
            ))
        var otherChannel = otherPackage
        otherChannel.id = Self.id
        otherChannel.channel = "beta"
        hostile.append(
            (
                "other channel", try SignedReleaseIndex.sign(otherChannel, with: tree.releaseKey).encoded(),
                { if case .wrongTarget = $0 { true } else { false } }
            ))

        for (name, data, matches) in hostile {
            expectIndexError({ _ = try reader.accept(.fresh(data, entityTag: nil), for: Self.id, source: source) }) {
                error in
                let ok = matches(error)
                if !ok { Issue.record("\(name): \(error)") }
                return ok
            }
        }
        #expect(reader.acceptedSequence(for: Self.id) == 0, "nothing hostile was remembered")
        expectIndexError({ _ = try reader.accept(.notModified, for: Self.id, source: source) }) {
            if case .malformed = $0 { true } else { false }
        }
        // The good index is accepted after all of that.
        #expect(try reader.accept(.fresh(good, entityTag: "\"a\""), for: Self.id, source: source).sequence == 1)
        #expect(reader.entityTag(for: Self.id) == "\"a\"")
    }

    @Test func sequenceOnlyGrowsAndExpiryIsEnforced() throws {
        let tree = try Tree()
        try tree.publisher.publish([try tree.fixture.pack("1.0.0")], to: tree.root, options: .init(validity: 3600))
        let first = try tree.indexData()
        try tree.publisher.publish([try tree.fixture.pack("1.1.0")], to: tree.root, options: .init(validity: 3600))
        let second = try tree.indexData()
        let reader = try tree.reader()
        let source = Self.base.absoluteString

        #expect(try reader.accept(.fresh(second, entityTag: nil), for: Self.id, source: source).sequence == 2)
        expectIndexError({ _ = try reader.accept(.fresh(first, entityTag: nil), for: Self.id, source: source) }) {
            $0 == .rolledBack(source: source, held: 2, offered: 1)
        }
        // The floor survives a restart (a new reader over the same store).
        let restarted = try tree.reader()
        expectIndexError({ _ = try restarted.accept(.fresh(first, entityTag: nil), for: Self.id, source: source) }) {
            $0 == .rolledBack(source: source, held: 2, offered: 1)
        }
        // Same sequence, other bytes: a broken publisher or a leaked key.
        var same = try SignedReleaseIndex.open(second, trustedKey: tree.releaseKey.verificationKey, source: source)
        same.releases = []
        let equivocating = try SignedReleaseIndex.sign(same, with: tree.releaseKey).encoded()
        expectIndexError({ _ = try reader.accept(.fresh(equivocating, entityTag: nil), for: Self.id, source: source) })
        {
            $0 == .conflictingIndex(source: source, sequence: 2)
        }
        #expect(try reader.accept(.fresh(second, entityTag: nil), for: Self.id, source: source).sequence == 2)

        // One second before expiry it holds; at expiry it does not, fresh or revalidated.
        let index = try SignedReleaseIndex.open(second, trustedKey: tree.releaseKey.verificationKey, source: source)
        tree.clock.set(index.expiresAt.addingTimeInterval(-1))
        #expect(try reader.accept(.notModified, for: Self.id, source: source).sequence == 2)
        tree.clock.set(index.expiresAt)
        expectIndexError({ _ = try reader.accept(.notModified, for: Self.id, source: source) }) {
            if case .expired = $0 { true } else { false }
        }
        expectIndexError({ _ = try reader.accept(.fresh(second, entityTag: nil), for: Self.id, source: source) }) {
            if case .expired = $0 { true } else { false }
        }
    }

    @Test func selectionFollowsRolloutHostVersionAndExclusions() throws {
        let tree = try Tree()
        try tree.publisher.publish([try tree.fixture.pack("1.0.0")], to: tree.root, options: .init())
        try tree.publisher.publish(
            [try tree.fixture.pack("2.0.0")], to: tree.root,
            options: .init(minimumHostVersion: SemanticVersion("2.0.0")))
        try tree.publisher.publish([try tree.fixture.pack("3.0.0-beta.1")], to: tree.root, options: .init(rollout: 0))
        let data = try tree.indexData()
        let source = Self.base.absoluteString

        let oldHost = try tree.reader(host: "1.5.0", storeName: "old")
        let index = try oldHost.accept(.fresh(data, entityTag: nil), for: Self.id, source: source)
        #expect(try oldHost.eligibleRelease(in: index, relativeTo: Self.base)?.version.description == "1.0.0")
        let newHost = try tree.reader(host: "2.1.0", storeName: "new")
        let release = try #require(try newHost.eligibleRelease(in: index, relativeTo: Self.base))
        #expect(release.version.description == "2.0.0", "0% rollout reaches nobody")
        #expect(release.full.location.hasPrefix("https://cdn.example.com/r/files/"))
        #expect(release.diff(from: try #require(SemanticVersion("1.0.0"))) != nil)
        let excluded = try newHost.eligibleRelease(
            in: index, relativeTo: Self.base, excluding: [try #require(SemanticVersion("2.0.0"))])
        #expect(excluded?.version.description == "1.0.0")

        var broken = index
        broken.releases[0].version = "three"
        #expect(throws: ReleaseIndexError.self) { try newHost.eligibleRelease(in: broken, relativeTo: Self.base) }
        broken = index
        broken.releases[1].minimumHostVersion = "two"
        #expect(throws: ReleaseIndexError.self) { try newHost.eligibleRelease(in: broken, relativeTo: Self.base) }
    }

    @Test func rolloutBucketsAreStableAndSpread() {
        let installs = (0..<10_000).map { _ in UUID().uuidString }
        let buckets = installs.map { RolloutBucket(installID: $0, packageID: Self.id, version: "2.0.0") }
        #expect(buckets == installs.map { RolloutBucket(installID: $0, packageID: Self.id, version: "2.0.0") })
        let reached = buckets.filter { $0.isIncluded(inPercent: 10) }.count
        #expect((850...1_150).contains(reached), "\(reached) of 10,000 in a 10% rollout")
        #expect(buckets.allSatisfy { $0.isIncluded(inPercent: 100) && !$0.isIncluded(inPercent: 0) })
        #expect(buckets.allSatisfy { !$0.isIncluded(inPercent: -5) && $0.isIncluded(inPercent: 500) })
        // Every install in a 10% rollout is still in at 50%: widening never takes a release away.
        #expect(buckets.filter { $0.isIncluded(inPercent: 10) }.allSatisfy { $0.isIncluded(inPercent: 50) })
    }

    @Test func installIdentityIsKeptAndRepaired() throws {
        let fixture = try Fixture()
        let root = fixture.url("store")
        let first = try InstallIdentity.load(storeRoot: root)
        #expect(try InstallIdentity.load(storeRoot: root) == first)
        try Data("garbage\u{0}".utf8).write(to: root.appendingPathComponent(".install-id"))
        let replaced = try InstallIdentity.load(storeRoot: root)
        #expect(replaced != first && UUID(uuidString: replaced) != nil)
        // The store ignores the id and the channel state beside the packages.
        let store = try PackageStore(root: root)
        #expect(store.repairReport.discardedVersions.isEmpty)
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(".install-id").path))
    }
}

/// Signs arbitrary bytes the way the publisher signs an index, to build validly signed non-indexes.
enum SignedReleaseIndexSigner {
    static func sign(_ bytes: Data, with key: PackageKeyPair) throws -> Data {
        let signature = try key.sign(manifestBytes: Data("hybridkit-release-index-v1\n".utf8) + bytes)
        let envelope = SignedReleaseIndex(
            algorithm: "ed25519", index: bytes, keyID: signature.keyID, signature: signature.signature)
        return try envelope.encoded()
    }
}
