/// The scheme handler a view keeps for its whole life; what it forwards to changes with each page.
///
/// The port can set a scheme handler but not remove one, so a pooled view would otherwise keep serving the
/// previous page's packages. A slot with no target answers "not found".
final class SchemeHandlerSlot: SchemeHandler, @unchecked Sendable {
    // Used on the engine's executor only.
    var target: (any SchemeHandler)?
    /// Tasks held weakly: the engine owns them and drops them when they end, without telling the handler.
    private var started: [ObjectIdentifier: Started] = [:]

    private struct Started {
        weak var task: (any SchemeTask)?
        let handler: any SchemeHandler
    }

    func start(_ task: any SchemeTask) {
        guard let target else {
            task.fail(.notFound("\(task.request.url.absoluteString): no page serves this scheme here"))
            return
        }
        started = started.filter { $0.value.task != nil }
        started[ObjectIdentifier(task)] = Started(task: task, handler: target)
        target.start(task)
    }

    /// The page's handler decides; with no page, nothing is read (the request is refused anyway).
    func mayReadBody(of request: EngineRequest) -> Bool {
        target?.mayReadBody(of: request) ?? false
    }

    func stop(_ task: any SchemeTask) {
        // The handler that started the task stops it, even when the slot moved on to another page.
        guard let entry = started.removeValue(forKey: ObjectIdentifier(task)) else { return }
        entry.handler.stop(task)
    }

    /// Detaches from the page: tasks still running are stopped with their handler.
    func clear() {
        target = nil
        let running = started
        started.removeAll()
        for (_, entry) in running {
            if let task = entry.task { entry.handler.stop(task) }
        }
    }
}
