import Foundation
import Synchronization
import Testing

@testable import HybridInterception

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
        let store = BodyStore(limits: BodyStoreLimits(maxBodyBytes: 100, maxTotalBytes: 150, maxEntries: 2))
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

    @Test func chunksMustFollowEachOtherAndNotOverrun() throws {
        let store = BodyStore()
        let id = try store.begin(size: 4, contentType: nil, owner: owner)
        #expect(throws: BodyStoreError.self) { try store.append(Data([1]), at: 2, to: id, owner: owner) }
        #expect(throws: BodyStoreError.self) { try store.append(Data([1, 2, 3, 4, 5]), at: 0, to: id, owner: owner) }
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
