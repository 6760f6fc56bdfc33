import Foundation
import HybridCore
import HybridOffline

/// A scheme task as the inner handler sees it once the request was rewritten: a stored body re-attached and the tag
/// removed, or the body key removed. Everything the inner handler sends goes straight to the engine's task.
final class AttachedBodyTask: SchemeTask, RedirectModeCarrying {
    let request: EngineRequest
    let base: any SchemeTask
    /// The page's `redirect` option, which the engine cannot apply to redirects the inner handler meets.
    let redirectMode: ProxiedRequest.RedirectMode
    /// Whether redirects the inner handler followed reach the page as headers (the hooks read them for requests
    /// they carried; other requests go to the engine as they are).
    private let reportsRedirection: Bool
    private let onEnd: @Sendable (AttachedBodyTask) -> Void

    init(
        base: any SchemeTask, request: EngineRequest, redirectMode: ProxiedRequest.RedirectMode = .follow,
        reportsRedirection: Bool = true, onEnd: @escaping @Sendable (AttachedBodyTask) -> Void
    ) {
        self.base = base
        self.request = request
        self.redirectMode = redirectMode
        self.reportsRedirection = reportsRedirection
        self.onEnd = onEnd
    }

    /// When the inner handler followed redirects, the hooks learn the final URL from the response headers (as from
    /// the proxy's) and show it to the page: the engine cannot be told.
    func respond(_ response: SchemeResponse) {
        var response = response
        if reportsRedirection, let redirection = response.redirection {
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
