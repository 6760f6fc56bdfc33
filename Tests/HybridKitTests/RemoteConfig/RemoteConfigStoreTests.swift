import Foundation
import HybridKit
import HybridPackages
import Testing

@Suite struct RemoteConfigStoreTests {
    let key = PackageKeyPair.generate()

    private func store(_ fetcher: ScriptedFetcher, cacheIn directory: URL) throws -> RemoteConfigStore {
        RemoteConfigStore(
            trustedKey: key.verificationKey, source: try #require(URL(string: "https://config.example/app.json")),
            cache: ConfigCache(directory: directory), fetcher: fetcher)
    }

    @Test func newerVersionsAreTakenCachedAndObserved() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fetcher = ScriptedFetcher()
        let store = try store(fetcher, cacheIn: directory)
        let seen = SeenVersions()
        let observation = store.observe { seen.add($0) }
        defer { observation.cancel() }

        fetcher.serve(try SignedConfig.sign(sampleConfig(version: 1), with: key))
        #expect(await store.refresh() == .updated(version: 1))
        #expect(await store.refresh() == .unchanged(version: 1))
        fetcher.serve(try SignedConfig.sign(sampleConfig(version: 2), with: key))
        #expect(await store.refresh() == .updated(version: 2))
        #expect(seen.versions == [1, 2])
        #expect(store.current?.version == 2)
        #expect(store.lastError == nil)

        // A restart reads the cache (verified again) and a late observer gets it at once.
        let restarted = try self.store(ScriptedFetcher(), cacheIn: directory)
        #expect(restarted.loadCached() == nil)
        #expect(restarted.current?.version == 2)
        let late = SeenVersions()
        _ = restarted.observe { late.add($0) }
        #expect(late.versions == [2])
    }

    @Test func badOffersKeepTheLastGoodConfig() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fetcher = ScriptedFetcher()
        let store = try store(fetcher, cacheIn: directory)
        let seen = SeenVersions()
        _ = store.observe { seen.add($0) }
        let good = try SignedConfig.sign(sampleConfig(version: 5), with: key)
        fetcher.serve(good)
        #expect(await store.refresh() == .updated(version: 5))

        // Replay of an older version.
        fetcher.serve(try SignedConfig.sign(sampleConfig(version: 4), with: key))
        #expect(await store.refresh() == .keptLastGood(.staleVersion(offered: 4, current: 5)))
        // The same version with other content.
        var changed = sampleConfig(version: 5)
        changed.hooks["fetch"] = true
        fetcher.serve(try SignedConfig.sign(changed, with: key))
        #expect(await store.refresh() == .keptLastGood(.versionReused(5)))
        // Signed by someone else.
        let other = PackageKeyPair.generate()
        fetcher.serve(try SignedConfig.sign(sampleConfig(version: 6), with: other))
        guard case .keptLastGood(.untrustedSigningKey) = await store.refresh() else {
            Issue.record("another key's config must be refused")
            return
        }
        // Unreachable.
        fetcher.fail(.unreachable(url: "https://config.example/app.json", reason: "connection refused"))
        guard case .keptLastGood(.unreachable) = await store.refresh() else {
            Issue.record("an unreachable server must keep the last good config")
            return
        }
        #expect(store.lastError == .unreachable(url: "https://config.example/app.json", reason: "connection refused"))
        #expect(store.current?.version == 5)
        #expect(seen.versions == [5])
        #expect(try ConfigCache(directory: directory).load() == good, "the cache still holds the last good config")
    }

    @Test func aCorruptCacheIsReportedAndIgnored() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ConfigCache(directory: directory)
        try cache.save(Data("{\"format\":\"hybridkit-config-v1\",\"docu".utf8))
        let store = try store(ScriptedFetcher(), cacheIn: directory)
        guard case .malformed = store.loadCached() else {
            Issue.record("a torn cache file must be reported as malformed")
            return
        }
        #expect(store.current == nil)
    }
}
