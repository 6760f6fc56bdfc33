import Foundation
import HybridKit
import HybridPackages
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing

/// The store against a real HTTP server on 127.0.0.1, with URLSession: a good config, then a tampered one, then
/// the server gone.
@Suite struct RemoteConfigServerTests {
    @Test func theStoreKeepsTheLastGoodConfigAcrossATamperedAnswerAndADeadServer() async throws {
        let key = PackageKeyPair.generate()
        let served = Mutex(Data())
        let router = Router()
        router.get("/config.json") { _, _ in
            Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: served.withLock { $0 })))
        }
        // 2 MiB without a declared length: the limit must apply while the bytes arrive.
        router.get("/huge.json") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    for _ in 0..<32 { try await writer.write(ByteBuffer(repeating: 0x20, count: 64 << 10)) }
                    try await writer.finish(nil)
                })
        }
        var logger = Logger(label: "hybrid.config-test-server")
        logger.logLevel = .warning
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            }, logger: logger)
        let server = Task { try await app.run() }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let store = RemoteConfigStore(
            trustedKey: key.verificationKey,
            source: try #require(URL(string: "http://127.0.0.1:\(port)/config.json")),
            cache: ConfigCache(directory: directory))
        served.withLock { $0 = (try? SignedConfig.sign(sampleConfig(version: 7), with: key)) ?? Data() }
        #expect(await store.refresh() == .updated(version: 7))

        // The server now answers a document altered after signing.
        let good = try SignedConfig.sign(sampleConfig(version: 8), with: key)
        var object = try #require(JSONSerialization.jsonObject(with: good) as? [String: Any])
        let encoded = try #require(object["document"] as? String)
        var document = try #require(Data(base64Encoded: encoded))
        document[document.count - 2] ^= 0x01
        object["document"] = document.base64EncodedString()
        served.withLock { $0 = (try? JSONSerialization.data(withJSONObject: object)) ?? Data() }
        guard case .keptLastGood = await store.refresh() else {
            Issue.record("a tampered config must be refused")
            return
        }
        #expect(store.current?.version == 7)

        // An answer larger than the fetcher's limit.
        let huge = RemoteConfigStore(
            trustedKey: key.verificationKey, source: try #require(URL(string: "http://127.0.0.1:\(port)/huge.json")),
            cache: ConfigCache(directory: directory), fetcher: URLSessionConfigFetcher(maxBytes: 1 << 20))
        #expect(await huge.refresh() == .keptLastGood(.tooLarge(limit: 1 << 20)))

        // The server goes away.
        server.cancel()
        try await Task.sleep(for: .milliseconds(300))
        guard case .keptLastGood(.unreachable) = await store.refresh() else {
            Issue.record("an unreachable server must be reported as such")
            return
        }
        #expect(store.current?.version == 7)
    }
}
