import Foundation
import HybridKit
import HybridKitTesting
import Synchronization
import Testing

@testable import HybridKit

/// A tagged request whose body is still uploading: the handler claims the body, hands it as it arrives to an inner
/// handler that reads ``EngineRequest/bodySource``, waits for the whole body for one that does not, and frees the
/// body when the request ends early.
@Suite @EngineActor struct StreamedBodyByIDTests {
    /// An inner handler that sends bodies as they arrive; keeps its tasks unanswered until the test ends them.
    final class StreamingInner: SchemeHandler {
        private let seen = Mutex<[any SchemeTask]>([])
        var tasks: [any SchemeTask] { seen.withLock { $0 } }
        var readsBodySource: Bool { true }
        func start(_ task: any SchemeTask) { seen.withLock { $0.append(task) } }
        func stop(_ task: any SchemeTask) {}
    }

    static let origin = "hybrid://a.test"
    static let bytes = Data(0..<8)

    func request(_ path: String, body: Data? = nil, headers: [(name: String, value: String)] = []) throws
        -> RecordingTask
    {
        RecordingTask(
            EngineRequest(
                url: try #require(URL(string: Self.origin + path)), method: "POST", headers: headers, body: body))
    }

    /// Begins an 8-byte body with its first 3 bytes; returns the id.
    func beginPartial(_ handler: InterceptingSchemeHandler) throws -> String {
        let task = try request("/__hybrid__/body?size=8", body: Self.bytes.prefix(3))
        handler.start(task)
        return try #require(task.json?["id"] as? String)
    }

    func appendRest(_ id: String, _ handler: InterceptingSchemeHandler) throws -> RecordingTask {
        let task = try request("/__hybrid__/body/\(id)?offset=3", body: Self.bytes.suffix(5))
        handler.start(task)
        return task
    }

    @Test func anInnerHandlerThatStreamsGetsTheRequestWhileTheBodyUploads() async throws {
        let inner = StreamingInner()
        let handler = InterceptingSchemeHandler(wrapping: inner, hop: EngineExecutorHop.immediate)
        let id = try beginPartial(handler)
        let tagged = try request("/api", headers: [("X-Hybrid-Body", id)])
        handler.start(tagged)
        let sent = try #require(inner.tasks.first).request
        #expect(sent.body == nil, "the bytes are still arriving")
        let source = try #require(sent.bodySource)
        #expect(source.count == 8)
        #expect(handler.store.count == 1, "claimed, in the store until its last chunk lands")
        #expect(try appendRest(id, handler).head?.statusCode == 200)
        #expect(try await source.bytes(at: 0, maxBytes: 8) == Self.bytes)
        #expect(handler.store.count == 0 && handler.store.reservedBytes == 0)
        try #require(inner.tasks.first).finish()
        #expect(tagged.finished && handler.attachedCount == 0)
    }

    @Test func anInnerHandlerThatReadsOnlyTheBodyGetsItWhole() async throws {
        let inner = InnerHandler()
        let handler = InterceptingSchemeHandler(wrapping: inner, hop: EngineExecutorHop.immediate)
        let id = try beginPartial(handler)
        let tagged = try request("/api", headers: [("X-Hybrid-Body", id)])
        handler.start(tagged)
        #expect(inner.requests.isEmpty, "not before the body is whole")
        _ = try appendRest(id, handler)
        for _ in 0..<500 where inner.requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(inner.requests.first?.body == Self.bytes)
        #expect(tagged.finished && handler.attachedCount == 0)
        #expect(handler.store.count == 0)
    }

    @Test(arguments: [false, true]) func stoppingARequestWhoseBodyIsUploadingFreesTheStore(_ streams: Bool) throws {
        let handler = InterceptingSchemeHandler(
            wrapping: streams ? StreamingInner() : InnerHandler(), hop: EngineExecutorHop.immediate)
        let id = try beginPartial(handler)
        let tagged = try request("/api", headers: [("X-Hybrid-Body", id)])
        handler.start(tagged)
        #expect(handler.attachedCount == 1)
        handler.stop(tagged)
        #expect(handler.attachedCount == 0)
        #expect(handler.store.count == 0 && handler.store.reservedBytes == 0)
        #expect(try appendRest(id, handler).head?.statusCode == 404, "the rest of the upload is refused")
    }

    @Test func aBodyDiscardedMidUploadFailsTheWaitingRequest() async throws {
        let inner = InnerHandler()
        let handler = InterceptingSchemeHandler(wrapping: inner, hop: EngineExecutorHop.immediate)
        let id = try beginPartial(handler)
        let tagged = try request("/api", headers: [("X-Hybrid-Body", id)])
        handler.start(tagged)
        handler.start(
            RecordingTask(
                EngineRequest(url: try #require(URL(string: "\(Self.origin)/__hybrid__/body/\(id)")), method: "DELETE"))
        )
        for _ in 0..<500 where tagged.error == nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(
            tagged.error?.description.contains("did not arrive in full") == true, "\(String(describing: tagged.error))")
        #expect(inner.requests.isEmpty && handler.attachedCount == 0 && handler.store.count == 0)
    }
}
