import Foundation
import HybridKit
import Testing

/// The body store counts what happens to bodies. Other suites in the process count too, so each event is checked
/// to have grown by at least what this test caused.
@Suite struct BodyStoreMetricsTests {
    @Test func storedConsumedAndRefusedAreCounted() throws {
        let metrics = MetricsSummary.installed()
        func count(_ event: String) -> Int64 { metrics.total(HybridMetrics.bodies, where: [("event", event)]) }
        let before = (count("stored"), count("consumed"), count("refused"))

        let store = BodyStore()
        let owner = BodyOwner(origin: "hybrid://app.example", scope: ObjectIdentifier(store))
        let id = try store.begin(size: 3, contentType: nil, owner: owner)
        try store.append(Data("abc".utf8), at: 0, to: id, owner: owner)
        #expect(try store.take(id, owner: owner).data == Data("abc".utf8))
        #expect(throws: BodyStoreError.unknownBody) { try store.take("forged", owner: owner) }

        #expect(count("stored") >= before.0 + 1)
        #expect(count("consumed") >= before.1 + 1)
        #expect(count("refused") >= before.2 + 1)
    }
}
