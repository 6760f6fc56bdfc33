import Foundation
import HybridKit
import HybridKitTesting
import Synchronization
import HybridTestSupport
import Testing

@Suite @EngineActor struct PackageSchemeHandlerTests {
    let fixture: OfflineFixture
    static let base = "hybrid://shop.example.com/app/"

    init() throws { fixture = try OfflineFixture() }

    @Test func servesAFileWithTypeLengthETagAndNoCache() async throws {
        let task = try await fixture.run(Self.base + "blob.bin")
        let response = try #require(task.response)
        #expect(response.statusCode == 200)
        #expect(response.expectedLength == 1000)
        #expect(response.headers["Content-Type"] == "application/octet-stream")
        #expect(response.headers["Content-Length"] == "1000")
        #expect(response.headers["ETag"] == "\"\(try #require(fixture.sha256("blob.bin")))\"")
        #expect(response.headers["Cache-Control"] == "no-cache")
        #expect(task.body == OfflineFixture.blob)
        // 64-byte chunks: streamed, not sent in one piece.
        #expect(task.events.filter { if case .send = $0 { true } else { false } }.count == 16)
        #expect(task.events.last == .finish)
    }

    @Test func servesTheEntryPageForThePrefixAndTypesFromTheManifest() async throws {
        let task = try await fixture.run(Self.base)
        #expect(task.response?.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(String(decoding: task.body, as: UTF8.self) == "<title>shop</title>")
        let script = try await fixture.run(Self.base + "js/app.js")
        #expect(script.response?.headers["Content-Type"] == "text/javascript; charset=utf-8")
    }

    @Test func ifNoneMatchAnswers304() async throws {
        let etag = "\"\(try #require(fixture.sha256("blob.bin")))\""
        let task = try await fixture.run(Self.base + "blob.bin", headers: [("If-None-Match", "W/\"x\", \(etag)")])
        #expect(task.response?.statusCode == 304)
        #expect(task.response?.headers["ETag"] == etag)
        #expect(task.body.isEmpty)
        let stale = try await fixture.run(Self.base + "blob.bin", headers: [("If-None-Match", "\"other\"")])
        #expect(stale.response?.statusCode == 200)
    }

    @Test(arguments: [
        ("bytes=100-199", 100...199), ("bytes=990-", 990...999), ("bytes=-10", 990...999),
        ("bytes=900-5000", 900...999),
    ])
    func rangesAnswer206(header: String, expected: ClosedRange<Int>) async throws {
        let task = try await fixture.run(Self.base + "blob.bin", headers: [("Range", header)])
        let response = try #require(task.response)
        #expect(response.statusCode == 206)
        #expect(response.headers["Content-Range"] == "bytes \(expected.lowerBound)-\(expected.upperBound)/1000")
        #expect(response.headers["Content-Length"] == "\(expected.count)")
        #expect(task.body == OfflineFixture.blob.subdata(in: expected.lowerBound..<(expected.upperBound + 1)))
    }

    @Test func unsatisfiableRangeAnswers416AndSeveralRangesTheWholeFile() async throws {
        let task = try await fixture.run(Self.base + "blob.bin", headers: [("Range", "bytes=1000-")])
        #expect(task.response?.statusCode == 416)
        #expect(task.response?.headers["Content-Range"] == "bytes */1000")
        #expect(task.body.isEmpty)
        let several = try await fixture.run(Self.base + "blob.bin", headers: [("Range", "bytes=0-1,5-6")])
        #expect(several.response?.statusCode == 200)
        #expect(several.body.count == 1000)
    }

    @Test func headSendsHeadersOnly() async throws {
        let task = try await fixture.run(Self.base + "blob.bin", method: "HEAD")
        #expect(task.response?.statusCode == 200)
        #expect(task.response?.headers["Content-Length"] == "1000")
        #expect(task.events.count == 2)
        #expect(task.events.last == .finish)
    }

    @Test func emptyFileFinishesWithoutBody() async throws {
        let task = try await fixture.run(Self.base + "empty.txt")
        #expect(task.response?.statusCode == 200)
        #expect(task.events.count == 2)
    }

    @Test(arguments: [
        "app/../secret", "app/%2e%2e/secret", "app/%2E%2E/%2e%2e/x", "app/..%2fsecret", "app/a%5c..%5cb",
        "app//etc/passwd",
    ])
    func traversalIsForbidden(path: String) async throws {
        let task = try await fixture.run("hybrid://shop.example.com/" + path)
        guard case .forbidden = task.failure else {
            Issue.record("expected forbidden, got \(task.events)")
            return
        }
        #expect(fixture.network.requests.withLock { $0.isEmpty })
    }

    @Test func aMissGoesToTheNetworkWithMethodHeadersAndBody() async throws {
        let handler = try fixture.handler()
        let url = try #require(URL(string: Self.base + "missing.js?v=1"))
        let task = RecordingTask(
            EngineRequest(
                url: url, method: "POST", headers: [("X-Test", "1"), ("Referer", Self.base + "index.html")],
                body: Data("body".utf8)))
        handler.start(task)
        _ = try await task.ended()
        #expect(task.response?.headers["X-From"] == "net")
        #expect(String(decoding: task.body, as: UTF8.self) == "from the network")
        #expect(task.events.last == .finish)
        let sent = try #require(fixture.network.requests.withLock { $0.first })
        #expect(sent.url.absoluteString == "https://shop.example.com/app/missing.js?v=1")
        #expect(sent.method == "POST")
        #expect(sent.body == Data("body".utf8))
        #expect(sent.header("x-test") == "1")
        #expect(sent.header("referer") == "https://shop.example.com/app/index.html")
        // No package serves this host at all: also the network.
        _ = try await fixture.run("hybrid://api.example.com/v1/items")
        #expect(fixture.network.requests.withLock { $0.last?.url.absoluteString } == "http://api.example.com/v1/items")
    }

    /// A miss the network cannot answer either fails the page's request, and the host hears why at the default
    /// level (it was silent: only the page saw a network error).
    @Test func aMissTheNetworkAlsoFailsIsAWarning() async throws {
        let logs = LogCapture.installed()
        logs.reset()
        fixture.network.failure.withLock { $0 = "the network is unreachable" }
        let task = try await fixture.run(Self.base + "missing.js")
        guard case .failed(let message) = task.failure else {
            Issue.record("expected a failure, got \(task.events)")
            return
        }
        #expect(message == "the network is unreachable")
        #expect(
            logs.logged(
                "hybrid.packages",
                "package miss failed on the network too: the page gets a network error; add the file to the package or make the network reachable"
            ))
    }

    @Test func hostsOutsideTheRouteAreNotFetched() async throws {
        let task = try await fixture.run("hybrid://169.254.169.254/latest/meta-data")
        guard case .forbidden = task.failure else {
            Issue.record("expected forbidden, got \(task.events)")
            return
        }
        #expect(fixture.network.requests.withLock { $0.isEmpty })
    }

    @Test func degradedPrefixesGoToTheNetworkFromTheNextRequest() async throws {
        let handler = try fixture.handler()
        #expect(try await fixture.run(Self.base + "js/app.js", handler: handler).response?.headers["X-From"] == nil)
        try handler.setDegradedPrefixes(["https://shop.example.com/app/js/"])
        #expect(handler.degradedPrefixes == ["https://shop.example.com/app/js/"])
        #expect(try await fixture.run(Self.base + "js/app.js", handler: handler).response?.headers["X-From"] == "net")
        #expect(try await fixture.run(Self.base + "index.html", handler: handler).response?.headers["X-From"] == nil)
        try handler.setDegradedPrefixes([])
        #expect(try await fixture.run(Self.base + "js/app.js", handler: handler).response?.headers["X-From"] == nil)
    }

    @Test func spaFallbackServesTheEntryForRoutes() async throws {
        let handler = try fixture.handler(spaFallback: true)
        let task = try await fixture.run(Self.base + "orders/42", handler: handler)
        #expect(String(decoding: task.body, as: UTF8.self) == "<title>shop</title>")
    }

    @Test func networkEventsKeepTheirOrderWhenHopsDoNot() throws {
        let pending = PendingHops()
        let route = try OfflineRoute(prefixes: [OfflineFixture.serves])
        let handler = PackageSchemeHandler(
            store: fixture.store, route: route, hop: { pending.add($0) }, network: fixture.network)
        let task = RecordingTask(EngineRequest(url: try #require(URL(string: Self.base + "missing.js"))))
        handler.start(task)
        pending.runAll(reversed: true)
        #expect(
            task.events == [
                .respond(SchemeResponse(statusCode: 200, headers: ["Content-Type": "text/plain", "X-From": "net"])),
                .send(Data("from the network".utf8)), .finish,
            ])
    }

    @Test func stopEndsTheFileStream() async throws {
        // A hop that queues bodies until the test runs them, so `stop` lands between two chunks.
        let pending = PendingHops()
        let route = try OfflineRoute(prefixes: [OfflineFixture.serves])
        let handler = PackageSchemeHandler(
            store: fixture.store, route: route, hop: { pending.add($0) }, network: fixture.network, chunkSize: 64)
        let task = RecordingTask(EngineRequest(url: try #require(URL(string: Self.base + "blob.bin"))))
        handler.start(task)
        try await pending.runNext()  // respond
        try await pending.runNext()  // first chunk
        handler.stop(task)
        try await Task.sleep(for: .milliseconds(50))
        pending.runAll()
        #expect(task.body.count == 64)
        #expect(!task.isEnded)
    }
}

/// Bodies handed to a hop, run when the test says so (as if the engine's loop were busy).
final class PendingHops: Sendable {
    private let bodies = Mutex<[@EngineActor @Sendable () -> Void]>([])

    func add(_ body: @escaping @EngineActor @Sendable () -> Void) { bodies.withLock { $0.append(body) } }

    @EngineActor func runNext() async throws {
        for _ in 0..<500 {
            if let body = bodies.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                body()
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no hop arrived")
    }

    @EngineActor func runAll(reversed: Bool = false) {
        while let body = bodies.withLock({ $0.isEmpty ? nil : reversed ? $0.removeLast() : $0.removeFirst() }) {
            body()
        }
    }
}
