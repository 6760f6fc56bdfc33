import Foundation
import HybridCore

/// Makes web views for containers and pools, so the container never names an engine.
///
/// Every method is called on ``executor``, the engine's own.
public protocol WebEngineFactory: Sendable {
    var executor: UnownedSerialExecutor { get }
    func makeEngine() throws(EngineError) -> any WebEngine
    /// Opaque bytes describing `engine`'s back/forward history, to restore into it later (``restoreHistory``).
    /// Nil when the engine cannot do this; a pool then never reuses a view whose history grew.
    func historySnapshot(of engine: any WebEngine) -> Data?
    /// Replaces `engine`'s back/forward history with `snapshot`. False when it could not.
    func restoreHistory(_ snapshot: Data, of engine: any WebEngine) -> Bool
    /// Tears `engine` down now (stops loads, ends its tasks, frees its process) rather than whenever it is
    /// released.
    func close(_ engine: any WebEngine)
}

extension WebEngineFactory {
    public func historySnapshot(of engine: any WebEngine) -> Data? { nil }
    public func restoreHistory(_ snapshot: Data, of engine: any WebEngine) -> Bool { false }
    public func close(_ engine: any WebEngine) {}
}
