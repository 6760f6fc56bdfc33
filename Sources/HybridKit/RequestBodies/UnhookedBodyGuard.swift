import Foundation
import Logging

/// Stands in front of a custom scheme that no request hooks serve: the engine reads no request body there, and
/// a request that carried one fails with an error the page sees, and a warning is logged.
nonisolated final class UnhookedBodyGuard: SchemeHandler {
    private let inner: any SchemeHandler
    private let scheme: String
    private let logger = Logger(label: "hybrid.container")

    static func message(scheme: String) -> String {
        "the request body was not read: the container serves '\(scheme)' without request hooks "
            + "(requestInterception: .off or another scheme hooked), and a body on a custom scheme is read only "
            + "through them (reading a Blob body crashes WebKitGTK 2.50). Turn requestInterception back on"
    }

    init(wrapping inner: any SchemeHandler, scheme: String) {
        self.inner = inner
        self.scheme = scheme
    }

    func mayReadBody(of request: EngineRequest) -> Bool { false }
    var readsBodySource: Bool { inner.readsBodySource }

    @EngineActor func start(_ task: any SchemeTask) {
        guard task.request.bodyWithheld else { return inner.start(task) }
        logger.warning(
            "request body refused", metadata: ["url": "\(task.request.url)", "scheme": "\(scheme)"])
        task.fail(.forbidden(Self.message(scheme: scheme)))
    }

    @EngineActor func stop(_ task: any SchemeTask) { inner.stop(task) }
}
