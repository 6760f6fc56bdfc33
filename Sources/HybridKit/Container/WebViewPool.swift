import Foundation
import Logging

/// Web views made ahead of time, handed out at once, reset before reuse.
///
/// A reset view must carry nothing of its previous page. What can be reset is reset: the document (a blank page
/// replaces it, so JS globals and the previous page's bridge go), user scripts (all removed, the host's put back),
/// bridge and page handlers (the container removed them), scheme handlers (their slots emptied), history (restored
/// to the warm view's snapshot where the engine can), and sessionStorage (cleared in the current document and its
/// same-origin frames). What cannot be is checked, and the view is closed instead of reused: a view whose pages
/// committed more than one origin (an earlier origin's sessionStorage cannot be reached), whose storage could not
/// be cleared (a cross-origin frame, a dead process), whose history cannot be restored, or whose blank page does
/// not come back exactly like a warm view's.
///
/// Runs on the engine's actor. Hosts call ``drain()`` on memory pressure.
@EngineActor
public final class WebViewPool {

    public nonisolated let factory: any WebEngineFactory
    public nonisolated let configuration: PoolConfiguration
    private var idle: [EngineHandle] = []
    /// Views being reset (not idle yet, not handed out).
    private var resetting = 0
    /// The history of a freshly warmed view, restored into each reset one.
    private var pristineHistory: Data?
    /// What ``probe`` answers in a freshly warmed view; a reset view must answer the same.
    private var pristineProbe: String?
    private var pristineHistoryLength: Int?
    private var statistics = PoolStatistics()
    private let logger = Logger(label: "hybrid.pool")

    /// The blank page, loaded as a URL: WebKitGTK keeps no history entry for HTML loaded as a string, and an
    /// empty back/forward list cannot be restored, so a warm view's history is one entry, this page.
    static let blankURL = URL(
        string: "data:text/html,%3C!DOCTYPE%20html%3E%3Ctitle%3E%3C/title%3E%3Cbody%3E%3C/body%3E")
    /// Clears sessionStorage in the document and every frame reachable from it; false when one refused.
    static let clearStorage =
        "(function(){var ok=true;function c(w){try{w.sessionStorage.clear()}catch(e){ok=false}"
        + "try{for(var i=0;i<w.frames.length;i++)c(w.frames[i])}catch(e){ok=false}}c(window);return ok})()"
    /// State a reset view must share with a warm one.
    /// (Not `history.length`: a document's count lags behind a restored list; the engine's list is compared.)
    static let probe =
        "(function(){var s;try{s=sessionStorage.length}catch(e){s='denied'}return JSON.stringify([s,"
        + "location.href,typeof window.hybrid,document.body?document.body.childElementCount:-1])})()"

    public init(factory: any WebEngineFactory, configuration: PoolConfiguration = PoolConfiguration()) {
        self.factory = factory
        self.configuration = configuration
    }

    public var idleCount: Int { idle.count }
    public var stats: PoolStatistics { statistics }

    // MARK: Warming

    /// Makes views until ``PoolConfiguration/warmCount`` are idle, each with its blank page loaded.
    public func prewarm() async throws(EngineError) {
        while idle.count + resetting < configuration.warmCount {
            let handle = try makeHandle()
            guard await loadBlank(handle) else {
                discard(handle, because: "blank page did not load")
                throw .engine("a pooled view did not load its blank page within \(configuration.loadTimeout)")
            }
            if pristineHistory == nil {
                pristineHistory = handle.engine.historySnapshot()
                pristineHistoryLength = handle.engine.historyLength
            }
            let answer = try? await handle.engine.evaluateJavaScript(Self.probe)
            guard let answer, pristineProbe == nil || pristineProbe == answer else {
                discard(handle, because: "warm view did not answer the probe")
                throw .engine("a pooled view did not answer the state probe: \(String(describing: answer))")
            }
            pristineProbe = answer
            idle.append(handle)
        }
    }

    /// A warm view, or nil when none is idle.
    func checkout() -> EngineHandle? {
        guard !idle.isEmpty else { return nil }
        statistics.handedOut += 1
        return idle.removeFirst()
    }

    /// A new view that belongs to the pool (given back and reset like a warm one): for prewarming, and for a
    /// container when none is idle.
    func makeHandle() throws(EngineError) -> EngineHandle {
        let engine = try factory.makeEngine()
        let handle = EngineHandle(engine: engine, hostScripts: configuration.hostUserScripts)
        for host in configuration.hostMessageHandlers {
            engine.addScriptMessageHandler(
                WeakScriptMessageHandler(host.handler), name: host.name, replies: host.replies)
        }
        handle.pool = self
        statistics.created += 1
        return handle
    }

    // MARK: Giving back

    /// Takes a view back from a closed container; it is reset in the background and becomes idle if it can be.
    func giveBack(_ handle: EngineHandle) {
        resetting += 1
        Task {
            await self.reset(handle)
        }
    }

    private func reset(_ handle: EngineHandle) async {
        defer { resetting -= 1 }
        if let reason = await resetProblem(handle) {
            discard(handle, because: reason)
            return
        }
        guard idle.count < configuration.capacity else {
            discard(handle, because: "pool full")
            return
        }
        statistics.reused += 1
        idle.append(handle)
    }

    /// Resets `handle`; returns why it cannot be reused, or nil when it is as good as a warm view.
    private func resetProblem(_ handle: EngineHandle) async -> String? {
        let engine = handle.engine
        let origins = handle.visitedOrigins
        if origins.count > 1 { return "pages committed \(origins.count) origins" }
        if !origins.isEmpty {
            let cleared = try? await engine.evaluateJavaScript(Self.clearStorage)
            guard cleared == "true" else { return "sessionStorage could not be cleared" }
        }
        engine.stopLoading()
        engine.removeAllUserScripts()
        for script in handle.hostScripts { engine.addUserScript(script) }
        guard await loadBlank(handle) else { return "blank page did not load" }
        if let pristineHistory {
            guard engine.restoreHistory(pristineHistory) else { return "history could not be restored" }
        } else if !origins.isEmpty {
            return "the engine cannot restore history"
        }
        let length = engine.historyLength
        guard length == pristineHistoryLength else {
            return
                "history has \(length.map(String.init) ?? "unknown") entries, a warm view \(pristineHistoryLength.map(String.init) ?? "unknown")"
        }
        let answer = try? await engine.evaluateJavaScript(Self.probe)
        guard let answer, answer == pristineProbe else {
            return "reset view differs from a warm one: \(answer ?? "no answer") vs \(pristineProbe ?? "none")"
        }
        handle.forgetVisits()
        return nil
    }

    private func loadBlank(_ handle: EngineHandle) async -> Bool {
        let engine = handle.engine
        let waiter = LoadWaiter()
        engine.navigationDelegate = waiter
        defer { if engine.navigationDelegate === waiter { engine.navigationDelegate = nil } }
        let timeout = configuration.loadTimeout
        let timer = Task { [weak waiter] in
            try? await Task.sleep(for: timeout)
            self.expire(waiter)
        }
        defer { timer.cancel() }
        guard let blank = Self.blankURL else { return false }
        return await withCheckedContinuation { continuation in
            waiter.arm(continuation)
            do { try engine.load(EngineRequest(url: blank)) } catch { waiter.settle(false) }
        }
    }

    private func expire(_ waiter: LoadWaiter?) { waiter?.settle(false) }

    private func discard(_ handle: EngineHandle, because reason: String) {
        logger.debug("pooled view closed", metadata: ["reason": "\(reason)"])
        statistics.discarded[reason, default: 0] += 1
        handle.pool = nil
        handle.close()
    }

    // MARK: Memory pressure

    /// Closes every idle view (memory pressure). Views in use are unaffected and are reset when given back.
    public func drain() {
        shrink(to: 0)
    }

    /// Closes idle views until at most `count` remain.
    public func shrink(to count: Int) {
        while idle.count > max(0, count) {
            let handle = idle.removeLast()
            statistics.drained += 1
            handle.pool = nil
            handle.close()
        }
    }
}
