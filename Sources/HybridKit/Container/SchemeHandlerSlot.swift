import Synchronization

/// The scheme handler a view keeps for its whole life; what it forwards to changes with each page.
///
/// The port can set a scheme handler but not remove one, so a pooled view would otherwise keep serving the
/// previous page's packages. A slot with no target answers "not found".
nonisolated final class SchemeHandlerSlot: SchemeHandler, Sendable {
    private struct State {
        var target: (any SchemeHandler)?
        /// Tasks held weakly: the engine owns them and drops them when they end, without telling the handler.
        var started: [ObjectIdentifier: Started] = [:]
    }

    private struct Started {
        weak var task: (any SchemeTask)?
        let handler: any SchemeHandler
    }

    // The engine asks whether a body may be read off its actor; a lock, so the compiler checks it. Handlers are
    // called outside it.
    private let state = Mutex(State())

    var target: (any SchemeHandler)? {
        get { state.withLock { $0.target } }
        set { state.withLock { $0.target = newValue } }
    }

    @EngineActor func start(_ task: any SchemeTask) {
        let target = state.withLock { state -> (any SchemeHandler)? in
            guard let target = state.target else { return nil }
            state.started = state.started.filter { $0.value.task != nil }
            state.started[ObjectIdentifier(task)] = Started(task: task, handler: target)
            return target
        }
        guard let target else {
            task.fail(.notFound("\(task.request.url.absoluteString): no page serves this scheme here"))
            return
        }
        target.start(task)
    }

    /// The page's handler decides; with no page, nothing is read (the request is refused anyway).
    func mayReadBody(of request: EngineRequest) -> Bool {
        target?.mayReadBody(of: request) ?? false
    }

    @EngineActor func stop(_ task: any SchemeTask) {
        // The handler that started the task stops it, even when the slot moved on to another page.
        guard let entry = state.withLock({ $0.started.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
        entry.handler.stop(task)
    }

    /// Detaches from the page: tasks still running are stopped with their handler.
    @EngineActor func clear() {
        let running = state.withLock { state in
            state.target = nil
            defer { state.started.removeAll() }
            return state.started
        }
        for (_, entry) in running {
            if let task = entry.task { entry.handler.stop(task) }
        }
    }
}
