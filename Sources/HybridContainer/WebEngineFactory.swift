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
    /// Entries in `engine`'s back/forward list as the engine keeps it, nil when it cannot say. (A document's own
    /// `history.length` can lag behind a restored list until the next navigation: WebKitGTK 2.50.)
    func historyLength(of engine: any WebEngine) -> Int?
    /// Tears `engine` down now (stops loads, ends its tasks, frees its process) rather than whenever it is
    /// released.
    func close(_ engine: any WebEngine)
}

extension WebEngineFactory {
    public func historySnapshot(of engine: any WebEngine) -> Data? { nil }
    public func restoreHistory(_ snapshot: Data, of engine: any WebEngine) -> Bool { false }
    public func historyLength(of engine: any WebEngine) -> Int? { nil }
    public func close(_ engine: any WebEngine) {}
}
