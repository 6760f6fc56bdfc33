import Foundation
import Synchronization

/// A scheme task as the inner handler sees it once the request was rewritten: a stored body re-attached and the tag
/// removed, or the body key removed. Everything the inner handler sends goes straight to the engine's task.
final class AttachedBodyTask: SchemeTask, RedirectModeCarrying {
    let base: any SchemeTask
    /// The page's `redirect` option, which the engine cannot apply to redirects the inner handler meets.
    let redirectMode: ProxiedRequest.RedirectMode
    /// Whether redirects the inner handler followed reach the page as headers (the hooks read them for requests
    /// they carried; other requests go to the engine as they are).
    private let reportsRedirection: Bool
    private let onEnd: @Sendable (AttachedBodyTask) -> Void

    private struct State {
        var request: EngineRequest
        /// The claimed body the request sends, released when the request ends however it ends.
        var storedBody: StoredBody?
        var started = false
    }

    private let state: Mutex<State>

    init(
        base: any SchemeTask, request: EngineRequest, redirectMode: ProxiedRequest.RedirectMode = .follow,
        reportsRedirection: Bool = true, storedBody: StoredBody? = nil,
        onEnd: @escaping @Sendable (AttachedBodyTask) -> Void
    ) {
        self.base = base
        self.redirectMode = redirectMode
        self.reportsRedirection = reportsRedirection
        self.onEnd = onEnd
        state = Mutex(State(request: request, storedBody: storedBody))
    }

    var request: EngineRequest {
        get { state.withLock { $0.request } }
        set { state.withLock { $0.request = newValue } }
    }

    /// Whether the inner handler has the task (a body by id may wait for its last chunk before it does).
    var started: Bool {
        get { state.withLock { $0.started } }
        set { state.withLock { $0.started = newValue } }
    }

    /// Frees the stored body: if its upload is still going, the store drops it and refuses the rest.
    func releaseBody() {
        let body = state.withLock { state in
            defer { state.storedBody = nil }
            return state.storedBody
        }
        body?.release()
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
        releaseBody()
        base.finish()
        onEnd(self)
    }

    func fail(_ error: SchemeTaskError) {
        releaseBody()
        base.fail(error)
        onEnd(self)
    }
}
