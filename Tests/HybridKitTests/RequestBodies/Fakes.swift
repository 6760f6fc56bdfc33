import Foundation
import HybridKit
import Synchronization

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
    struct Cancel: ProxyCancelling {
        let proxy: ScriptedProxy
        func cancel() { proxy.cancelled.withLock { $0 += 1 } }
    }
    let events: [ProxyEvent]
    private let seen = Mutex<[ProxiedRequest]>([])
    fileprivate let cancelled = Mutex(0)
    var requests: [ProxiedRequest] { seen.withLock { $0 } }
    /// How many times a request's handle was cancelled.
    var cancels: Int { cancelled.withLock { $0 } }

    init(_ events: [ProxyEvent]) { self.events = events }

    func perform(_ request: ProxiedRequest, events sink: @escaping @Sendable (ProxyEvent) -> Void)
        -> any ProxyCancelling
    {
        seen.withLock { $0.append(request) }
        for event in events { sink(event) }
        return Cancel(proxy: self)
    }
}
