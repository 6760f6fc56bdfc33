import Foundation
import HybridKit
import HybridPackages
import Synchronization
import Testing

/// `hybrid publish` output served by a real nginx on 127.0.0.1, read by `ChannelUpdateClient` + `PackageUpdater`.
@Suite("Release channel on nginx", .serialized)
struct ReleaseChannelNginxTests {
    static let id = ReleaseTreeFixture.id

    @Test func fullInstallThenUpdateByDiffWithProgress() async throws {
        let fixture = try ReleaseTreeFixture()
        let blob = (0..<200_000).map { _ in UInt8.random(in: 0...255) }
        try await fixture.publish([try fixture.pack("1.0.0", blob: blob)])
        let store = try fixture.store()
        let updater = fixture.updater(store, client: try fixture.client())
        let events = Mutex<[PackageProgress]>([])
        let progress: PackageProgressHandler = { event in events.withLock { $0.append(event) } }

        let first = try await updater.update(Self.id, progress: progress)
        #expect(first == .updated(from: nil, to: try ReleaseTreeFixture.version("1.0.0"), viaDiff: false))
        let fullDownloads = events.withLock { $0 }.filter { $0.phase == .downloading }
        #expect(fullDownloads.count > 5, "a 200 kB package in 16 kB ranges reports each range")
        #expect(
            zip(fullDownloads, fullDownloads.dropFirst()).allSatisfy { pair in
                pair.0.completedBytes < pair.1.completedBytes
            })
        #expect(fullDownloads.last.map { $0.completedBytes == $0.totalBytes } == true)
        #expect(events.withLock { $0 }.contains { $0.phase == .installing })

        // 2.0.0 keeps the large blob, so the diff carries only the two small files.
        let full2 = try fixture.pack("2.0.0", blob: blob)
        try await fixture.publish([full2])
        let index = try #require(try await fixture.client(storeName: "peek").currentIndex(for: Self.id))
        let release2 = try #require(index.releases.first { $0.version == "2.0.0" })
        let diff = try #require(release2.diffs.first { $0.from == "1.0.0" })
        #expect(diff.size * 10 < release2.full.size)

        events.withLock { $0.removeAll() }
        let second = try await updater.update(Self.id, progress: progress)
        #expect(
            second
                == .updated(
                    from: try ReleaseTreeFixture.version("1.0.0"), to: try ReleaseTreeFixture.version("2.0.0"),
                    viaDiff: true))
        let log = fixture.nginx.logLines()
        #expect(log.contains { $0.contains("/files/\(diff.sha256).zip") && $0.hasPrefix("206") })
        #expect(!log.contains { $0.contains("/files/\(release2.full.sha256).zip") })
        let diffBytes = events.withLock { $0 }.filter { $0.phase == .downloading }.last?.completedBytes
        #expect(diffBytes == diff.size)
        let active = try #require(store.activePackage(Self.id))
        #expect(active.version == (try ReleaseTreeFixture.version("2.0.0")))
        #expect(try await updater.update(Self.id) == .upToDate(active.version))
    }

    @Test func downloadCutMidFileResumesWithRange() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0")])
        let proxy = try CuttingProxy(upstreamPort: fixture.nginx.port)
        defer { proxy.stop() }
        let store = try fixture.store()
        _ = try await fixture.updater(store, client: try fixture.client(base: proxy.baseURL)).update(Self.id)
        // A full package only (no diff), large enough for many ranges.
        try await fixture.publish([try fixture.pack("2.0.0", blobSize: 300_000)], ["--diffs", "0"])

        proxy.cutAfter.withLock { $0 = 60_000 }
        let impatient = fixture.updater(store, client: try fixture.client(base: proxy.baseURL), maxAttempts: 1)
        await #expect(throws: DownloadError.self) { try await impatient.update(Self.id) }
        #expect(proxy.cuts.withLock { $0 } >= 1)
        #expect(store.activeVersion(Self.id) == (try ReleaseTreeFixture.version("1.0.0")), "the old version serves")
        let parts = try FileManager.default.contentsOfDirectory(
            at: store.root.appendingPathComponent(".downloads"), includingPropertiesForKeys: nil
        ).filter { $0.pathExtension == "part" }
        let part = try #require(parts.first)
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: part.path)[.size] as? NSNumber)
            .int64Value
        #expect(kept > 0 && kept % 16_384 == 0, "whole ranges before the cut were kept")

        proxy.cutAfter.withLock { $0 = nil }
        let linesBefore = fixture.nginx.logLines().count
        let resumed = try await fixture.updater(store, client: try fixture.client(base: proxy.baseURL)).update(Self.id)
        #expect(
            resumed
                == .updated(
                    from: try ReleaseTreeFixture.version("1.0.0"), to: try ReleaseTreeFixture.version("2.0.0"),
                    viaDiff: false))
        let after = fixture.nginx.logLines().dropFirst(linesBefore).filter { $0.contains("/files/") }
        #expect(after.first?.contains("range=\"bytes=\(kept)-") == true, "resumed at byte \(kept): \(after)")
        #expect(!after.contains { $0.contains("range=\"bytes=0-") })
    }

    @Test func indexIsRevalidatedWith304() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0")])
        let client = try fixture.client()
        let first = try #require(try await client.latestRelease(for: Self.id))
        let second = try #require(try await client.latestRelease(for: Self.id))
        #expect(first == second)
        let indexLines = fixture.nginx.logLines().filter { $0.contains("/channels/production/\(Self.id).json") }
        #expect(indexLines.count == 2)
        #expect(indexLines.first?.hasPrefix("200") == true)
        let tag = try #require(client.reader.entityTag(for: Self.id))
        #expect(indexLines.last?.hasPrefix("304") == true)
        #expect(indexLines.last?.contains(tag.replacingOccurrences(of: "\"", with: "\\x22")) == true)
    }

    @Test func olderIndexIsRefused() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0")])
        let old = try Data(contentsOf: fixture.indexFile())
        try await fixture.publish([try fixture.pack("2.0.0")])
        let store = try fixture.store()
        let client = try fixture.client()
        _ = try await fixture.updater(store, client: client).update(Self.id)
        #expect(client.reader.acceptedSequence(for: Self.id) == 2)

        // A mirror serves the first index again. Its own modification time makes nginx's ETag differ from the
        // held one (nginx tags are mtime-size), as a stale mirror's would.
        try old.write(to: fixture.indexFile())
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: fixture.indexFile().path)
        await #expect(throws: ReleaseIndexError.self) { try await client.latestRelease(for: Self.id) }
        do {
            _ = try await fixture.updater(store, client: client).update(Self.id)
            Issue.record("an older index was accepted")
        } catch let error as ReleaseIndexError {
            guard case .rolledBack(_, let held, let offered) = error else {
                Issue.record("expected rolledBack, got \(error)")
                return
            }
            #expect(held == 2 && offered == 1)
        }
        #expect(store.activeVersion(Self.id) == (try ReleaseTreeFixture.version("2.0.0")))
        // A fresh install has no floor yet and takes the old index: the floor is per install, kept in its store.
        #expect(try await fixture.client(storeName: "fresh").currentIndex(for: Self.id)?.sequence == 1)
    }

    @Test func expiredIndexIsRefusedByTheInjectedClock() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0")], ["--expires-in", "1"])
        let clock = TestClock()
        let store = try fixture.store()
        let client = try fixture.client(clock: clock)
        _ = try await fixture.updater(store, client: client).update(Self.id)

        // Two hours on, nginx still answers 304 for the held index: a frozen mirror, refused all the same.
        clock.advance(2 * 3600)
        do {
            _ = try await client.currentIndex(for: Self.id)
            Issue.record("an expired index was accepted")
        } catch let error as ReleaseIndexError {
            guard case .expired = error else { throw error }
        }
        #expect(fixture.nginx.logLines().last?.hasPrefix("304") == true)

        // A new release whose index expired too (by the client's clock) is refused as well.
        try await fixture.publish([try fixture.pack("2.0.0")], ["--expires-in", "1"])
        do {
            _ = try await fixture.updater(store, client: client).update(Self.id)
            Issue.record("an expired index was accepted")
        } catch let error as ReleaseIndexError {
            guard case .expired = error else { throw error }
        }
        #expect(fixture.nginx.logLines().last?.hasPrefix("200") == true)
        #expect(store.activeVersion(Self.id) == (try ReleaseTreeFixture.version("1.0.0")))

        // The publisher re-signs; the refreshed index is accepted by the same clock.
        try await fixture.publish([], ["--refresh", "--expires-in", "24"])
        #expect(
            try await fixture.updater(store, client: client).update(Self.id)
                == .updated(
                    from: try ReleaseTreeFixture.version("1.0.0"), to: try ReleaseTreeFixture.version("2.0.0"),
                    viaDiff: true))
    }

    @Test func tamperedOrForeignIndexIsRefused() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0")])
        let store = try fixture.store()
        let original = try Data(contentsOf: fixture.indexFile())

        // Lower the rollout inside the signed bytes, keep the signature.
        var envelope = try JSONDecoder().decode(SignedReleaseIndex.self, from: original)
        let text = String(decoding: envelope.index, as: UTF8.self)
        #expect(text.contains("\"rollout\":100"))
        envelope.index = Data(text.replacingOccurrences(of: "\"rollout\":100", with: "\"rollout\":0").utf8)
        try envelope.encoded().write(to: fixture.indexFile())
        do {
            _ = try await fixture.updater(store, client: try fixture.client()).update(Self.id)
            Issue.record("a tampered index was accepted")
        } catch let error as ReleaseIndexError {
            guard case .signatureInvalid = error else { throw error }
        }

        // Properly signed, but by a key the app does not trust.
        let index = try JSONDecoder.iso8601.decode(ReleaseIndex.self, from: envelope.index)
        try SignedReleaseIndex.sign(index, with: PackageKeyPair.generate()).encoded().write(to: fixture.indexFile())
        do {
            _ = try await fixture.updater(store, client: try fixture.client()).update(Self.id)
            Issue.record("a foreign index was accepted")
        } catch let error as ReleaseIndexError {
            guard case .untrustedKey = error else { throw error }
        }
        #expect(store.activeVersion(Self.id) == nil)

        try original.write(to: fixture.indexFile())
        #expect(
            try await fixture.updater(store, client: try fixture.client()).update(Self.id)
                == .updated(from: nil, to: try ReleaseTreeFixture.version("1.0.0"), viaDiff: false))
    }

    @Test func tenPercentRolloutReachesAStableTenthOfInstalls() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0")])
        try await fixture.publish([try fixture.pack("2.0.0")], ["--rollout", "10"])
        // Fixed ids: random ones made the count a draw (binomial, sd ≈ 9.5), outside 80…120 in about 1 run in 30.
        let installs = (0..<1_000).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
        // One session for all simulated installs, as one process would have; each keeps its own store.
        let session = ChannelUpdateClient.uncachedSession()
        var offered: [Set<String>] = []
        for check in 0..<2 {
            var reached = Set<String>()
            for (number, install) in installs.enumerated() {
                let client = try fixture.client(storeName: "install-\(number)", installID: install, session: session)
                let release = try #require(try await client.latestRelease(for: Self.id), "check \(check)")
                if release.version == (try ReleaseTreeFixture.version("2.0.0")) {
                    reached.insert(install)
                } else {
                    #expect(release.version == (try ReleaseTreeFixture.version("1.0.0")))
                }
            }
            offered.append(reached)
        }
        // Exactly the installs whose bucket is in the first tenth, and about a tenth of them.
        let expected = installs.filter {
            RolloutBucket(installID: $0, packageID: Self.id, version: "2.0.0").isIncluded(inPercent: 10)
        }
        #expect(offered[0] == Set(expected))
        #expect((80...120).contains(offered[0].count), "10% rollout reached \(offered[0].count) of 1,000")
        #expect(offered[0] == offered[1], "the same installs on every check")
        // Every check went to nginx, the second ones as 304 revalidations.
        let lines = fixture.nginx.logLines().filter { $0.contains("/channels/") }
        #expect(lines.count == 2_000)
        #expect(lines.filter { $0.hasPrefix("304") }.count == 1_000)

        // Widening the same release to 100% reaches an install the 10% left out.
        try await fixture.publish([fixture.url("shop-2.0.0.zip")], ["--rollout", "100"])
        let outside = try #require(installs.firstIndex { !offered[0].contains($0) })
        let client = try fixture.client(storeName: "install-\(outside)", installID: installs[outside], session: session)
        #expect(try await client.latestRelease(for: Self.id)?.version == (try ReleaseTreeFixture.version("2.0.0")))
    }

    @Test func channelsAndMinimumHostVersion() async throws {
        let fixture = try ReleaseTreeFixture()
        try await fixture.publish([try fixture.pack("1.0.0")], ["--channel", "beta"])
        try await fixture.publish(
            [try fixture.pack("2.0.0")], ["--channel", "beta", "--min-host-version", "2.0.0"])
        let old = try fixture.client(
            storeName: "old-app", channel: "beta", host: try ReleaseTreeFixture.version("1.9.0"))
        let new = try fixture.client(
            storeName: "new-app", channel: "beta", host: try ReleaseTreeFixture.version("2.0.0"))
        #expect(try await old.latestRelease(for: Self.id)?.version == (try ReleaseTreeFixture.version("1.0.0")))
        #expect(try await new.latestRelease(for: Self.id)?.version == (try ReleaseTreeFixture.version("2.0.0")))
        // Production has published nothing: nginx answers 404 and there is no release.
        #expect(try await fixture.client(storeName: "prod").latestRelease(for: Self.id) == nil)
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
