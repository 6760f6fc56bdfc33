#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit
@testable import WebKitStandIn

/// A port scheme task that records what reached it (the engine side of the stand-in).
final class RecordingPortTask: SchemeTask, @unchecked Sendable {
    let request: EngineRequest
    private let lock = NSLock()
    private var log: [String] = []

    init(url: String = "app://demo/x", method: String = "GET", body: Data? = nil) {
        request = EngineRequest(url: URL(string: url) ?? URL(fileURLWithPath: "/"), method: method, body: body)
    }

    var calls: [String] { lock.withLock { log } }
    private func note(_ call: String) { lock.withLock { log.append(call) } }

    func respond(_ response: SchemeResponse) { note("respond \(response.statusCode)") }
    func send(_ data: Data) { note("send \(data.count)") }
    func finish() { note("finish") }
    func fail(_ error: SchemeTaskError) { note("fail") }
}

/// A stand-in WKURLSchemeTask over a recording port task, as WebKit would hand it to a handler.
@MainActor
func makeStandInTask(_ port: RecordingPortTask = RecordingPortTask()) -> StandInSchemeTask {
    StandInSchemeTask(task: port, lane: EngineLane()) { _ in }
}

func okResponse() -> URLResponse {
    HTTPURLResponse(
        url: URL(fileURLWithPath: "/"), statusCode: 200, httpVersion: "HTTP/1.1",
        headerFields: ["Content-Type": "text/plain"])
        ?? URLResponse(
            url: URL(fileURLWithPath: "/"), mimeType: "text/plain", expectedContentLength: -1, textEncodingName: nil
        )
}

/// Calls a main-actor closure on another thread, past the compiler (as a nonisolated Objective-C callback or
/// a `@preconcurrency` import would): what WebKit's run-time main-thread checks are for.
func callOffMain(_ body: @escaping @MainActor () -> Void) {
    typealias Plain = () -> Void
    let plain = unsafeBitCast(body, to: Plain.self)
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) let call = plain
    Thread.detachNewThread {
        call()
        done.signal()
    }
    done.wait()
}

@MainActor func waitUntil(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws
    -> Bool
{
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}
#endif
