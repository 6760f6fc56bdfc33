import Foundation
import Synchronization

/// A web view as the container and the pool hold it: the engine, the scheme slots it keeps for life, the
/// host's own scripts (put back after every reset) and what pages did in it since it was last reset.
///
@EngineActor
public final class EngineHandle {
    public let engine: any WebEngine
    /// The host's scripts: installed at creation, kept through resets.
    let hostScripts: [UserScript]
    private var slots: [String: SchemeHandlerSlot] = [:]
    /// Origins of the main-frame documents committed since the last reset. sessionStorage is per view and
    /// origin, and only the current document's can be cleared: a view that saw more than one is not reused.
    private(set) var visitedOrigins: Set<String> = []
    /// Set by a pool when it made this view; the container gives it back instead of closing it.
    weak var pool: WebViewPool?

    init(engine: any WebEngine, hostScripts: [UserScript] = []) {
        self.engine = engine
        self.hostScripts = hostScripts
        for script in hostScripts { engine.addUserScript(script) }
        LiveObjects.handleCount.add(1, ordering: .relaxed)
    }

    deinit { LiveObjects.handleCount.subtract(1, ordering: .relaxed) }

    /// Closes the view for good.
    func close() {
        clearSchemes()
        engine.close()
    }

    /// Engines a container drives, until it lets go of them: two containers driving one view would register its
    /// schemes and handlers twice (WebKit raises an exception for a scheme registered twice).
    private static let claimed = Mutex<Set<ObjectIdentifier>>([])

    /// Takes the engine for a container; false when a container holds it already.
    func claim() -> Bool { Self.claimed.withLock { $0.insert(ObjectIdentifier(engine)).inserted } }

    /// The container let go of the engine (closed it, or gave it back to its pool).
    func unclaim() { _ = Self.claimed.withLock { $0.remove(ObjectIdentifier(engine)) } }

    /// Routes `scheme` to `handler` for the current page.
    func serve(_ scheme: String, with handler: any SchemeHandler) throws(EngineError) {
        let key = scheme.lowercased()
        if let slot = slots[key] {
            slot.target = handler
            return
        }
        let slot = SchemeHandlerSlot()
        slot.target = handler
        try engine.setSchemeHandler(slot, forScheme: key)
        slots[key] = slot
    }

    /// Takes every scheme away from the page that had them.
    func clearSchemes() {
        for slot in slots.values { slot.clear() }
    }

    func noteCommitted(_ url: URL?) {
        guard let url, url.absoluteString != "about:blank" else { return }
        visitedOrigins.insert(Self.origin(of: url))
    }

    func forgetVisits() { visitedOrigins.removeAll() }

    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let host = url.host?.lowercased() ?? ""
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
