import Foundation
import HybridKit
import Synchronization

/// A `SchemeTask` that records what a handler does to it, for unit tests of `SchemeHandler`s.
///
/// Thread-safe, so a test may run a handler's hops inline on whatever queue the handler reads from. It records
/// every call, including calls a real task would ignore (after it ended), so tests can catch them.
public final class RecordingTask: SchemeTask {
    public enum Event: Equatable, Sendable {
        case respond(SchemeResponse)
        case send(Data)
        case finish
        case fail(SchemeTaskError)
    }

    public let request: EngineRequest
    private let recorded = Mutex<[Event]>([])

    public init(_ request: EngineRequest) { self.request = request }

    /// Every call, oldest first.
    public var events: [Event] { recorded.withLock { $0 } }
    /// The first response head.
    public var response: SchemeResponse? {
        events.lazy.compactMap { if case .respond(let response) = $0 { response } else { nil } }.first
    }
    /// Same as ``response``.
    public var head: SchemeResponse? { response }
    /// Every byte sent, in order.
    public var body: Data { events.reduce(into: Data()) { if case .send(let data) = $1 { $0.append(data) } } }
    public var finished: Bool { events.contains(.finish) }
    /// The first failure.
    public var failure: SchemeTaskError? {
        events.lazy.compactMap { if case .fail(let error) = $0 { error } else { nil } }.first
    }
    /// Same as ``failure``.
    public var error: SchemeTaskError? { failure }
    /// The body parsed as a JSON object, nil when it is not one.
    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    /// Whether the task was finished or failed.
    public var isEnded: Bool {
        events.contains {
            switch $0 {
            case .finish, .fail: true
            default: false
            }
        }
    }

    public func respond(_ response: SchemeResponse) { recorded.withLock { $0.append(.respond(response)) } }
    public func send(_ data: Data) { recorded.withLock { $0.append(.send(data)) } }
    public func finish() { recorded.withLock { $0.append(.finish) } }
    public func fail(_ error: SchemeTaskError) { recorded.withLock { $0.append(.fail(error)) } }

    /// Waits until the task was finished or failed, or `timeout` passed; returns the task either way (check
    /// ``isEnded``).
    @discardableResult
    public func ended(timeout: Duration = .seconds(5)) async throws -> RecordingTask {
        let deadline = ContinuousClock.now + timeout
        while !isEnded, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return self
    }
}
