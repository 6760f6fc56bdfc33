import Foundation
import HybridKit
import HybridPackages
import Synchronization

func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-config-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Answers whatever the test put in, or fails as an unreachable server would.
final class ScriptedFetcher: ConfigFetching {
    private let next = Mutex<Result<Data, ConfigError>>(.failure(.unreachable(url: "test", reason: "nothing yet")))
    func serve(_ data: Data) { next.withLock { $0 = .success(data) } }
    func fail(_ error: ConfigError) { next.withLock { $0 = .failure(error) } }
    func fetch(_ url: URL) async throws(ConfigError) -> Data { try next.withLock { $0 }.get() }
}

/// Collects what an observer was handed.
final class SeenVersions: Sendable {
    private let state = Mutex<[UInt64]>([])
    var versions: [UInt64] { state.withLock { $0 } }
    func add(_ config: RemoteConfig) { state.withLock { $0.append(config.version) } }
}

func sampleConfig(version: UInt64, expiresAt: Date? = nil) -> RemoteConfig {
    RemoteConfig(
        version: version, issuedAt: Date(timeIntervalSince1970: 1_800_000_000), expiresAt: expiresAt,
        degradedPrefixes: ["https://legacy.example.com/old/"], hooks: ["fetch": false, "xhr": true],
        bridgePermissions: ["camera": ["https://shop.example.com"], "log": ["*"]],
        scripts: [ReplacementScript(name: "fix-scroll", source: "document.body.style.overflow='auto';")])
}
