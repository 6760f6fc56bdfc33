#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import Synchronization

/// Passes tasks to another handler and keeps the requests, to count what the engine asked for.
final class RecordingSchemeHandler: SchemeHandler {
    private let inner: any SchemeHandler
    private let recorded = Mutex<[EngineRequest]>([])

    init(_ inner: any SchemeHandler) { self.inner = inner }

    var requests: [EngineRequest] { recorded.withLock { $0 } }

    func start(_ task: any SchemeTask) {
        recorded.withLock { $0.append(task.request) }
        inner.start(task)
    }

    func stop(_ task: any SchemeTask) { inner.stop(task) }
    func mayReadBody(of request: EngineRequest) -> Bool { inner.mayReadBody(of: request) }
}
#endif
