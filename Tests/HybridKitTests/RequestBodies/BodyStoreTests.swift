import Foundation
import Synchronization
import Testing

@testable import HybridKit

final class Scope {}

@Suite struct BodyStoreTests {
    let scope = Scope()
    var owner: BodyOwner { BodyOwner(origin: "hybrid://a.test", scope: ObjectIdentifier(scope)) }

    @Test func uploadInChunksThenTakeOnceRemovesTheBody() throws {
        let store = BodyStore()
        let id = try store.begin(size: 6, contentType: "application/x-test", owner: owner)
        #expect(BodyStore.isWellFormedID(id))
        try store.append(Data("abc".utf8), at: 0, to: id, owner: owner)
        let partial = try store.begin(size: 6, contentType: nil, owner: owner)
        try store.append(Data("abc".utf8), at: 0, to: partial, owner: owner)
        #expect(throws: BodyStoreError.incomplete(received: 3, expected: 6)) { try store.take(partial, owner: owner) }
        try store.append(Data("def".utf8), at: 3, to: id, owner: owner)
        let body = try store.take(id, owner: owner)
        #expect(body.data == Data("abcdef".utf8))
        #expect(body.contentType == "application/x-test")
        #expect(throws: BodyStoreError.unknownBody) { try store.take(id, owner: owner) }
        #expect(store.count == 0 && store.reservedBytes == 0)
    }

    @Test func anotherOriginOrScopeCannotUseAnID() throws {
        let store = BodyStore()
        let id = try store.begin(size: 1, contentType: nil, owner: owner)
        try store.append(Data([1]), at: 0, to: id, owner: owner)
        let otherOrigin = BodyOwner(origin: "hybrid://b.test", scope: owner.scope)
        let otherView = Scope()
        let otherScope = BodyOwner(origin: owner.origin, scope: ObjectIdentifier(otherView))
        #expect(throws: BodyStoreError.unknownBody) { try store.take(id, owner: otherOrigin) }
        #expect(throws: BodyStoreError.unknownBody) { try store.take(id, owner: otherScope) }
        #expect(throws: BodyStoreError.unknownBody) { try store.append(Data([2]), at: 1, to: id, owner: otherOrigin) }
        // Forged ids look like real ones and still fail the same way.
        #expect(throws: BodyStoreError.unknownBody) { try store.take(BodyStore.randomID(), owner: owner) }
        #expect(try store.take(id, owner: owner).data == Data([1]))
    }

    @Test func refusesBodiesOverTheLimitsBeforeReadingThem() throws {
        let store = BodyStore(
            limits: BodyStoreLimits(
                maxBodyBytes: 100, maxTotalBytes: 150, maxEntries: 2, maxBytesPerOrigin: 150, maxEntriesPerOrigin: 2))
        #expect(throws: BodyStoreError.bodyTooLarge(size: 200 << 20, limit: 100)) {
            try store.begin(size: 200 << 20, contentType: nil, owner: owner)
        }
        _ = try store.begin(size: 100, contentType: nil, owner: owner)
        #expect(throws: BodyStoreError.storeFull(limit: 150)) {
            try store.begin(size: 60, contentType: nil, owner: owner)
        }
        _ = try store.begin(size: 50, contentType: nil, owner: owner)
        #expect(throws: BodyStoreError.tooManyBodies(limit: 2)) {
            try store.begin(size: 0, contentType: nil, owner: owner)
        }
        #expect(store.reservedBytes == 150)
    }

    @Test func oneOriginCannotTakeTheWholeStore() throws {
        let store = BodyStore(limits: BodyStoreLimits(maxBodyBytes: 100, maxTotalBytes: 200, maxEntries: 4))
        #expect(store.limits.maxBytesPerOrigin == 100 && store.limits.maxEntriesPerOrigin == 2)
        let hostile = BodyOwner(origin: "hybrid://frame.test", scope: owner.scope)
        let full = BodyStoreError.originQuotaFull(origin: "hybrid://frame.test", bytes: 100, entries: 2)
        let first = try store.begin(size: 60, contentType: nil, owner: hostile)
        #expect(throws: full) { try store.begin(size: 41, contentType: nil, owner: hostile) }
        _ = try store.begin(size: 40, contentType: nil, owner: hostile)
        #expect(throws: full, "a third body, however small") {
            try store.begin(size: 0, contentType: nil, owner: hostile)
        }
        // The page's own origin, and the same origin in another view, still have their share.
        _ = try store.begin(size: 100, contentType: nil, owner: owner)
        #expect(throws: BodyStoreError.storeFull(limit: 200)) {
            try store.begin(size: 1, contentType: nil, owner: owner)
        }
        // What a body held comes back when it goes (taken, discarded or expired alike).
        store.discard(first, owner: hostile)
        _ = try store.begin(size: 60, contentType: nil, owner: hostile)
        #expect(store.reservedBytes == 200)
        #expect(full.description.contains("maxBytesPerOrigin"))
    }

    @Test func chunksLandInAnyOrderAtTheirOffsets() throws {
        let store = BodyStore()
        let id = try store.begin(size: 10, contentType: nil, owner: owner)
        #expect(try store.append(Data([7, 8, 9]), at: 7, to: id, owner: owner) == 3)
        #expect(try store.append(Data([3, 4, 5, 6]), at: 3, to: id, owner: owner) == 7)
        #expect(throws: BodyStoreError.incomplete(received: 7, expected: 10), "bytes 0..<3 never came") {
            try store.take(id, owner: owner)
        }
    }

    @Test func outOfOrderChunksAssembleTheExactBody() throws {
        let store = BodyStore()
        let id = try store.begin(size: 10, contentType: nil, owner: owner)
        try store.append(Data([7, 8, 9]), at: 7, to: id, owner: owner)
        try store.append(Data([0, 1, 2]), at: 0, to: id, owner: owner)
        try store.append(Data([3, 4, 5, 6]), at: 3, to: id, owner: owner)
        #expect(try store.take(id, owner: owner).data == Data(0..<10))
        #expect(store.count == 0 && store.reservedBytes == 0)
    }

    @Test func chunksMayNeitherOverlapNorOverrun() throws {
        let store = BodyStore()
        let id = try store.begin(size: 8, contentType: nil, owner: owner)
        try store.append(Data([2, 3]), at: 2, to: id, owner: owner)
        #expect(throws: BodyStoreError.self, "the same bytes twice") {
            try store.append(Data([2, 3]), at: 2, to: id, owner: owner)
        }
        #expect(throws: BodyStoreError.self, "overlaps the end of what arrived") {
            try store.append(Data([3, 4]), at: 3, to: id, owner: owner)
        }
        #expect(throws: BodyStoreError.self, "overlaps the start of what arrived") {
            try store.append(Data([1, 2]), at: 1, to: id, owner: owner)
        }
        #expect(throws: BodyStoreError.self, "covers what arrived") {
            try store.append(Data([0, 1, 2, 3, 4]), at: 0, to: id, owner: owner)
        }
        #expect(throws: BodyStoreError.self, "past the announced size") {
            try store.append(Data([6, 7, 8]), at: 6, to: id, owner: owner)
        }
        #expect(throws: BodyStoreError.self, "starts past the announced size") {
            try store.append(Data([9]), at: 9, to: id, owner: owner)
        }
        // Refused chunks left nothing behind: the rest still fits exactly.
        try store.append(Data([0, 1]), at: 0, to: id, owner: owner)
        try store.append(Data([4, 5, 6, 7]), at: 4, to: id, owner: owner)
        #expect(try store.take(id, owner: owner).data == Data(0..<8))
    }

    @Test func entriesExpire() throws {
        let clock = Mutex(ContinuousClock.now)
        let store = BodyStore(limits: BodyStoreLimits(timeToLive: .seconds(5)), now: { clock.withLock { $0 } })
        let id = try store.begin(size: 1, contentType: nil, owner: owner)
        try store.append(Data([9]), at: 0, to: id, owner: owner)
        clock.withLock { $0 += .seconds(6) }
        #expect(throws: BodyStoreError.unknownBody) { try store.take(id, owner: owner) }
        #expect(store.count == 0 && store.reservedBytes == 0)
    }

    @Test func discardAllForAScope() throws {
        let store = BodyStore()
        _ = try store.begin(size: 10, contentType: nil, owner: owner)
        store.discardAll(scope: owner.scope)
        #expect(store.count == 0 && store.reservedBytes == 0)
    }
}
