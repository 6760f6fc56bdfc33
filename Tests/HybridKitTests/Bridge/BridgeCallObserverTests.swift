import Foundation
import HybridKitTesting
import Synchronization
import Testing

@testable import HybridKit

/// `BridgeConfiguration.callObserver` hears every call once it is answered: module and method as the page
/// wrote them, the caller, the outcome and how long it took; refused and failed calls included.
@EngineActor
@Suite struct BridgeCallObserverTests {
    let engine = FakeEngine()
    let records = Recorded()

    final class Recorded: Sendable {
        private let list = Mutex<[BridgeCallRecord]>([])
        func append(_ record: BridgeCallRecord) { list.withLock { $0.append(record) } }
        func withLock<T: Sendable>(_ body: ([BridgeCallRecord]) -> T) -> T { list.withLock { body($0) } }
    }

    func makeBridge() throws -> BridgeEngine {
        var configuration = BridgeConfiguration()
        let records = self.records
        configuration.callObserver = { record in records.append(record) }
        let modules = ModuleRegistry([
            BridgeModule("math", access: .origins("https://app.example")) { module in
                module.method("add") { (p: Point, _) in p.x + p.y }
                module.method("later") { (_: NoArguments, _) async throws -> Int in
                    try await Task.sleep(for: .milliseconds(20))
                    return 1
                }
            }
        ])
        return try BridgeEngine(engine: engine, modules: modules, configuration: configuration)
    }

    private func record(_ module: String, _ method: String) -> BridgeCallRecord? {
        records.withLock { $0.first { $0.module == module && $0.method == method } }
    }

    @Test func everyAnsweredCallIsTold() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        engine.post(PageMessage.call("math", "add", id: 1, args: #"{"x":2,"y":3}"#))
        engine.post(PageMessage.call("nope", "x", id: 2))
        engine.post(PageMessage.call("math", "add", id: 3, origin: "https://evil.example"))
        engine.post(PageMessage.call("math", "add", id: 4, args: #"{"x":"two"}"#))
        engine.post(PageMessage.call("math", "later", id: 5))
        #expect(await waitUntil { records.withLock { $0.count } == 5 })

        let added = try #require(record("math", "add"))
        #expect(added.error == nil && added.origin == "https://app.example" && added.isMainFrame)
        #expect(added.originVerified)  // The fake engine names the sending frame, as WKWebView does.
        #expect(added.duration >= .zero)
        #expect(record("nope", "x")?.error == .unknownModule)
        let outcomes = records.withLock { $0.filter { $0.module == "math" && $0.method == "add" }.map(\.error) }
        #expect(outcomes.count == 3 && outcomes.contains(.denied) && outcomes.contains(.badArguments))
        let later = try #require(record("math", "later"))
        #expect(later.error == nil)
    }

    @Test func messagesThatAreNoCallAreNotTold() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        engine.post(PageMessage.hello())
        engine.post(.string("H1 call not-a-number"))
        engine.post(PageMessage.call("math", "add", id: 1, args: #"{"x":1,"y":1}"#))
        #expect(await waitUntil { records.withLock { $0.count } == 1 })
        await settle()
        #expect(records.withLock { $0.map(\.method) } == ["add"])
    }
}
