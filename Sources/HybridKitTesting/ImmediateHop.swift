import Foundation
import HybridKit

extension EngineExecutorHop {
    /// A hop for unit tests of scheme handlers that belong to no engine: the body runs at once when the caller is
    /// on the engine's actor, as most of a handler's calls are, and otherwise (a file or network read finishing on
    /// another thread) from a new task on that actor, as a real hop would.
    public nonisolated static let immediate: EngineHop = { body in
        if EngineActor.isOnEngineThread {
            // Checked just above.
            EngineActor.assumeIsolated(body)
        } else {
            Task { @EngineActor in body() }
        }
    }
}
