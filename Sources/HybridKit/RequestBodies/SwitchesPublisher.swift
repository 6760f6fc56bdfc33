import Foundation
import Synchronization

/// Keeps one engine's pages in step with its ``InterceptionSwitches``: after every change, the main frame's
/// document gets the new values at once and documents loaded later get them from a user script (the previous
/// one replaced, so flips do not pile up scripts).
///
@EngineActor
public final class SwitchesPublisher {
    private let switches: InterceptionSwitches
    private weak var engine: (any WebEngine)?
    private let observation: Mutex<SwitchesObservation?> = Mutex(nil)
    /// The script in the engine now.
    private var installed: UserScript?

    public init(switches: InterceptionSwitches, engine: any WebEngine) {
        self.switches = switches
        self.engine = engine
        let hop = EngineExecutorHop.hop(onExecutorOf: engine)
        let token = switches.observe { [weak self] _ in
            // Hops may run out of order: each publishes the values current when it runs, so the last one wins.
            hop { [weak self] in self?.publish() }
        }
        observation.withLock { $0 = token }
    }

    deinit { observation.withLock { $0?.cancel() } }

    /// Stops following the switches and removes the script (documents loaded later get the baked-in values).
    public func cancel() {
        observation.withLock {
            $0?.cancel(); $0 = nil
        }
        if let script = installed.take() { engine?.removeUserScript(script) }
    }

    /// Publishes the current values now, rather than on the next hop after a change:
    /// for a host that flips a switch and loads a page right after.
    public func publish() {
        guard let engine, observation.withLock({ $0 != nil }) else { return }
        let settings = switches.effective
        let script = RequestHooksScript.switchesScript(settings)
        if let previous = installed { engine.removeUserScript(previous) }
        installed = script
        engine.addUserScript(script)
        engine.evaluateJavaScriptIgnoringResult(
            "window.__hybridRequestSwitches = \(RequestHooksScript.switchesJSON(settings));")
    }
}
