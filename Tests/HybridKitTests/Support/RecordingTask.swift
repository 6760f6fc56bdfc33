import Foundation
import HybridKit
import Synchronization

/// Records what the handler does to a task. Thread-safe: the tests' hop runs bodies inline on the read queue.
final class RecordingTask: SchemeTask {
    enum Event: Equatable {
        case respond(SchemeResponse)
        case send(Data)
        case finish
        case fail(SchemeTaskError)
    }

    let request: EngineRequest
    private let recorded = Mutex<[Event]>([])

    init(_ request: EngineRequest) { self.request = request }

    var events: [Event] { recorded.withLock { $0 } }
    var response: SchemeResponse? {
        events.lazy.compactMap { if case .respond(let response) = $0 { response } else { nil } }.first
    }
    var body: Data { events.reduce(into: Data()) { if case .send(let data) = $1 { $0.append(data) } } }
    var head: SchemeResponse? { response }
    var finished: Bool { events.contains(.finish) }
    var error: SchemeTaskError? { failure }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    var failure: SchemeTaskError? {
        events.lazy.compactMap { if case .fail(let error) = $0 { error } else { nil } }.first
    }
    var isEnded: Bool {
        events.contains {
            switch $0 {
            case .finish, .fail: true
            default: false
            }
        }
    }

    func respond(_ response: SchemeResponse) { recorded.withLock { $0.append(.respond(response)) } }
    func send(_ data: Data) { recorded.withLock { $0.append(.send(data)) } }
    func finish() { recorded.withLock { $0.append(.finish) } }
    func fail(_ error: SchemeTaskError) { recorded.withLock { $0.append(.fail(error)) } }

    /// Waits (up to 5 s) for finish or fail.
    func ended() async throws -> RecordingTask {
        for _ in 0..<500 where !isEnded { try await Task.sleep(for: .milliseconds(10)) }
        return self
    }
}
