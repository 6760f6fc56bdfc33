import Foundation
import HybridKit
import Synchronization
import Testing

@testable import HybridKit

/// Claimed bodies: a request streams a body while the page is still uploading it.
@Suite struct StoredBodyTests {
    let scope = Scope()
    var owner: BodyOwner { BodyOwner(origin: "hybrid://a.test", scope: ObjectIdentifier(scope)) }

    /// Reads the whole body the way the proxy does, from offset 0 in slices.
    static func readAll(_ body: StoredBody, slice: Int = 3) async throws -> Data {
        var result = Data()
        while result.count < body.count {
            let bytes = try await body.bytes(at: result.count, maxBytes: slice)
            guard !bytes.isEmpty else { break }
            result.append(bytes)
        }
        return result
    }

    @Test func aClaimedBodyStreamsWhileItsChunksLandOutOfOrder() async throws {
        let store = BodyStore()
        let id = try store.begin(size: 12, contentType: "text/plain", owner: owner)
        try store.append(Data([0, 1, 2, 3]), at: 0, to: id, owner: owner)
        let body = try store.claim(id, owner: owner)
        #expect(body.contentType == "text/plain" && body.count == 12 && !body.isComplete)
        #expect(body.completeData == nil)
        let reading = Task { try await Self.readAll(body) }
        try store.append(Data([8, 9, 10, 11]), at: 8, to: id, owner: owner)
        #expect(store.count == 1, "still uploading: the entry stays until the last chunk")
        try store.append(Data([4, 5, 6, 7]), at: 4, to: id, owner: owner)
        #expect(try await reading.value == Data(0..<12))
        #expect(store.count == 0 && store.reservedBytes == 0, "every byte arrived: consumed")
        #expect(body.completeData == Data(0..<12))
        // The body can be read again from the start (a 307/308 re-send).
        #expect(try await Self.readAll(body, slice: 100) == Data(0..<12))
    }

    @Test func aClaimedIDIsSpent() throws {
        let store = BodyStore()
        let id = try store.begin(size: 4, contentType: nil, owner: owner)
        try store.append(Data([1]), at: 0, to: id, owner: owner)
        let body = try store.claim(id, owner: owner)
        #expect(throws: BodyStoreError.unknownBody) { try store.claim(id, owner: owner) }
        #expect(throws: BodyStoreError.unknownBody) { try store.take(id, owner: owner) }
        withExtendedLifetime(body) {}
    }

    @Test func anotherOwnerCannotClaim() throws {
        let store = BodyStore()
        let id = try store.begin(size: 1, contentType: nil, owner: owner)
        let other = BodyOwner(origin: "hybrid://b.test", scope: owner.scope)
        #expect(throws: BodyStoreError.unknownBody) { try store.claim(id, owner: other) }
        #expect(throws: BodyStoreError.unknownBody) { try store.claim(BodyStore.randomID(), owner: owner) }
    }

    @Test func aCompleteBodyLeavesTheStoreWhenClaimed() throws {
        let store = BodyStore()
        let id = try store.begin(size: 2, contentType: nil, owner: owner)
        try store.append(Data([5, 6]), at: 0, to: id, owner: owner)
        let body = try store.claim(id, owner: owner)
        #expect(body.completeData == Data([5, 6]))
        #expect(store.count == 0 && store.reservedBytes == 0)
    }

    @Test func aDiscardedUploadFailsTheReaderWithATypedError() async throws {
        let store = BodyStore()
        let id = try store.begin(size: 8, contentType: nil, owner: owner)
        try store.append(Data([0, 1]), at: 0, to: id, owner: owner)
        let body = try store.claim(id, owner: owner)
        let reading = Task { try await Self.readAll(body) }
        store.discard(id, owner: owner)
        await #expect(throws: BodyStoreError.incomplete(received: 2, expected: 8)) { try await reading.value }
        #expect(store.count == 0 && store.reservedBytes == 0)
        #expect(throws: BodyStoreError.unknownBody) { try store.append(Data([2]), at: 2, to: id, owner: owner) }
    }

    @Test func anExpiredUploadFailsTheReader() async throws {
        let clock = Mutex(ContinuousClock.now)
        let store = BodyStore(limits: BodyStoreLimits(timeToLive: .seconds(5)), now: { clock.withLock { $0 } })
        let id = try store.begin(size: 8, contentType: nil, owner: owner)
        let body = try store.claim(id, owner: owner)
        let reading = Task { try await Self.readAll(body) }
        clock.withLock { $0 += .seconds(6) }
        #expect(throws: BodyStoreError.unknownBody) { try store.append(Data([0]), at: 0, to: id, owner: owner) }
        await #expect(throws: BodyStoreError.incomplete(received: 0, expected: 8)) { try await reading.value }
        #expect(store.count == 0 && store.reservedBytes == 0)
    }

    @Test func droppingAnIncompleteClaimDiscardsTheRestOfTheUpload() throws {
        let store = BodyStore()
        let id = try store.begin(size: 8, contentType: nil, owner: owner)
        try store.append(Data([0, 1]), at: 0, to: id, owner: owner)
        do {
            let body = try store.claim(id, owner: owner)
            #expect(body.count == 8)
        }
        #expect(store.count == 0 && store.reservedBytes == 0, "the request ended: nothing waits for the rest")
        #expect(throws: BodyStoreError.unknownBody) { try store.append(Data([2]), at: 2, to: id, owner: owner) }
    }

    @Test func aCancelledReaderStopsWaiting() async throws {
        let store = BodyStore()
        let id = try store.begin(size: 8, contentType: nil, owner: owner)
        let body = try store.claim(id, owner: owner)
        let reading = Task { try await body.bytes(at: 0, maxBytes: 8) }
        reading.cancel()
        await #expect(throws: CancellationError.self) { try await reading.value }
        // The buffer is still usable: a later read gets the bytes once they land.
        try store.append(Data(0..<8), at: 0, to: id, owner: owner)
        #expect(try await body.bytes(at: 2, maxBytes: 3) == Data([2, 3, 4]))
    }
}
