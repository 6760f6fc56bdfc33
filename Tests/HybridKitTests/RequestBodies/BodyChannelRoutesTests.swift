import Foundation
import HybridKit
import HybridKitTesting
import Testing

@testable import HybridKit

/// The body channel's decisions, without a socket: what a preflight gets, which heads open an upload, and that a
/// refused or broken upload leaves nothing in the store.
@Suite struct BodyChannelRoutesTests {
    let origin = "hybrid://app.example"
    let routes = BodyChannelRoutes()
    let page = InterceptingSchemeHandler(wrapping: InnerHandler(), hop: EngineExecutorHop.immediate)

    init() { routes.register(page) }

    var owner: BodyOwner { BodyOwner(origin: origin, scope: ObjectIdentifier(page)) }

    func request(
        _ id: String, method: String = "POST", origin: String? = "hybrid://app.example", key: String? = nil,
        length: Int? = 4
    ) -> BodyChannelRoutes.Request {
        .init(
            method: method, path: BodyChannelRoutes.path, origin: origin, key: key ?? page.bodyKey, bodyID: id,
            contentLength: length)
    }

    func refusal(_ request: BodyChannelRoutes.Request) -> BodyChannelRefusal? {
        do {
            _ = try routes.open(request)
            return nil
        } catch {
            return error
        }
    }

    @Test func aPreflightIsAnsweredOnlyForTheOriginThatReservedTheBody() throws {
        let id = try page.store.begin(size: 4, contentType: nil, owner: owner)
        let cors = try #require(routes.preflight(request(id, method: "OPTIONS", key: "")))
        #expect(cors.contains { $0 == ("Access-Control-Allow-Origin", origin) })
        #expect(routes.preflight(request(id, method: "OPTIONS", origin: "https://evil.example")) == nil)
        #expect(routes.preflight(request(id, method: "OPTIONS", origin: nil)) == nil)
        var elsewhere = request(id, method: "OPTIONS")
        elsewhere.path = "/other"
        #expect(routes.preflight(elsewhere) == nil)
        // Once the origin's only reserved body has its upload, the origin gets no preflight.
        _ = try routes.open(request(id))
        #expect(routes.preflight(request(id, method: "OPTIONS")) == nil)
    }

    @Test func headsAreRefusedBeforeAnyByteWithTypedErrors() throws {
        let id = try page.store.begin(size: 4, contentType: nil, owner: owner)
        let other = InterceptingSchemeHandler(wrapping: InnerHandler(), hop: EngineExecutorHop.immediate)
        routes.register(other)
        #expect(refusal(request(id, method: "GET")) == .notFound(method: "GET", path: BodyChannelRoutes.path))
        #expect(refusal(request("../not-an-id")) == .store(.unknownBody))
        #expect(refusal(request(id, key: "")) == .unknownKey)
        #expect(refusal(request(id, key: String(page.bodyKey.reversed()))) == .unknownKey)
        #expect(refusal(request(id, key: other.bodyKey)) == .store(.unknownBody))
        #expect(refusal(request(id, origin: "https://evil.example")) == .store(.unknownBody))
        #expect(refusal(request(id, origin: nil)) == .wrongOrigin(nil))
        #expect(refusal(request(id, origin: "null")) == .wrongOrigin("null"))
        #expect(refusal(request(id, length: nil)) == .lengthRequired)
        // None of those touched the body: it still waits for its upload.
        #expect(page.store.awaitsChannelUpload(id, origin: origin))
        // A wrong length comes with the page's key: the body goes.
        #expect(refusal(request(id, length: 5)) == .lengthMismatch(announced: 5, reserved: 4))
        #expect(page.store.count == 0)
        for refusal in [BodyChannelRefusal.unknownKey, .lengthRequired, .timedOut(seconds: 3), .foreignHost("x")] {
            #expect(!refusal.description.isEmpty && refusal.status >= 400)
        }
    }

    @Test func anUploadStoresItsBytesAsTheyArriveAndOnlyOnce() throws {
        let id = try page.store.begin(size: 4, contentType: "text/plain", owner: owner)
        var upload = try routes.open(request(id))
        #expect(refusal(request(id)) == .store(.badChunk("this body is already being uploaded")))
        try upload.write(contentsOf: [1, 2])
        let streamed = try page.store.claim(id, owner: owner)
        try upload.write(contentsOf: [3, 4])
        try upload.finish()
        #expect(streamed.completeData == Data([1, 2, 3, 4]))
        #expect(page.store.count == 0)
        #expect(routes.uploadsOpened == 1)
    }

    @Test func aShortOrLongUploadDropsTheBodyAndFailsItsRequest() async throws {
        let short = try page.store.begin(size: 4, contentType: nil, owner: owner)
        var cut = try routes.open(request(short))
        let waiting = try page.store.claim(short, owner: owner)
        try cut.write(contentsOf: [1])
        #expect(throws: BodyChannelRefusal.cut(received: 1, expected: 4)) { try cut.finish() }
        await #expect(throws: BodyStoreError.self) { _ = try await waiting.complete() }

        let long = try page.store.begin(size: 2, contentType: nil, owner: owner)
        var over = try routes.open(request(long, length: 2))
        #expect(throws: BodyChannelRefusal.self) {
            try over.write(contentsOf: [1, 2, 3])
        }
        #expect(page.store.count == 0)
    }

    @Test func aClosedPageLeavesTheRoutes() throws {
        var closing: InterceptingSchemeHandler? = InterceptingSchemeHandler(
            wrapping: InnerHandler(), hop: EngineExecutorHop.immediate)
        let key = try #require(closing?.bodyKey)
        routes.register(try #require(closing))
        #expect(routes.registeredCount == 2)
        closing = nil
        #expect(routes.registeredCount == 1)
        #expect(refusal(request(BodyStore.randomID(), key: key)) == .unknownKey)
    }

    @Test func keysCompareInFull() {
        #expect(BodyChannelRoutes.constantTimeEqual("abc", "abc"))
        #expect(!BodyChannelRoutes.constantTimeEqual("abc", "abd"))
        #expect(!BodyChannelRoutes.constantTimeEqual("abc", "abcd"))
        #expect(!BodyChannelRoutes.constantTimeEqual("", "a"))
    }
}
