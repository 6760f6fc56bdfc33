import Foundation
import HybridCore
import HybridOffline

/// A scheme task as the inner handler sees it once a stored body is re-attached: the same task, with the body in
/// its request and the tag removed. Everything the inner handler sends goes straight to the engine's task.
final class AttachedBodyTask: SchemeTask, RedirectModeCarrying {
    let request: EngineRequest
    let base: any SchemeTask
    /// The page's `redirect` option, which the engine cannot apply to redirects the inner handler meets.
    let redirectMode: ProxiedRequest.RedirectMode
    private let onEnd: @Sendable (AttachedBodyTask) -> Void

    init(
        base: any SchemeTask, request: EngineRequest, redirectMode: ProxiedRequest.RedirectMode = .follow,
        onEnd: @escaping @Sendable (AttachedBodyTask) -> Void
    ) {
        self.base = base
        self.request = request
        self.redirectMode = redirectMode
        self.onEnd = onEnd
    }

    /// When the inner handler followed redirects, the hooks learn the final URL from the response headers (as from
    /// the proxy's) and show it to the page: the engine cannot be told.
    func respond(_ response: SchemeResponse) {
        var response = response
        if let redirection = response.redirection {
            response.headers.merge(
                FinalURLHeaders.headers(
                    for: redirection.url.absoluteString, redirected: true, bodyResends: redirection.bodyResends)
            ) { $1 }
        }
        base.respond(response)
    }
    func send(_ data: Data) { base.send(data) }

    func finish() {
        base.finish()
        onEnd(self)
    }

    func fail(_ error: SchemeTaskError) {
        base.fail(error)
        onEnd(self)
    }
}
