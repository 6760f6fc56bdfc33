import Foundation
import HybridCore
import Synchronization

/// A scheme task that records what the handler answered.
final class RecordingTask: SchemeTask {
    let request: EngineRequest
    private let state = Mutex<(head: SchemeResponse?, body: Data, finished: Bool, error: SchemeTaskError?)>(
        (nil, Data(), false, nil))

    init(_ request: EngineRequest) { self.request = request }

    var head: SchemeResponse? { state.withLock { $0.head } }
    var body: Data { state.withLock { $0.body } }
    var finished: Bool { state.withLock { $0.finished } }
    var error: SchemeTaskError? { state.withLock { $0.error } }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }

    func respond(_ response: SchemeResponse) { state.withLock { $0.head = response } }
    func send(_ data: Data) { state.withLock { $0.body.append(data) } }
    func finish() { state.withLock { $0.finished = true } }
    func fail(_ error: SchemeTaskError) { state.withLock { $0.error = error } }
}

/// The scheme's own handler: keeps the requests it got and answers 200.
final class InnerHandler: SchemeHandler {
    private let seen = Mutex<[EngineRequest]>([])
    var requests: [EngineRequest] { seen.withLock { $0 } }
    func start(_ task: any SchemeTask) {
        seen.withLock { $0.append(task.request) }
        task.respond(status: 200, body: Data("inner".utf8))
    }
    func stop(_ task: any SchemeTask) {}
}

/// A proxy that answers every request from a script of events, and keeps the requests.
final class ScriptedProxy: RequestProxying {
    struct Cancel: ProxyCancelling { func cancel() {} }
    let events: [ProxyEvent]
    private let seen = Mutex<[ProxiedRequest]>([])
    var requests: [ProxiedRequest] { seen.withLock { $0 } }

    init(_ events: [ProxyEvent]) { self.events = events }

    func perform(_ request: ProxiedRequest, events sink: @escaping @Sendable (ProxyEvent) -> Void)
        -> any ProxyCancelling
    {
        seen.withLock { $0.append(request) }
        for event in events { sink(event) }
        return Cancel()
    }
}
