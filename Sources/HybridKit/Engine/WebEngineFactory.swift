import Foundation

/// Makes web views for containers and pools, so the container never names an engine.
///
/// Every method is called on ``executor``, the engine's own.
public protocol WebEngineFactory: Sendable {
    var executor: UnownedSerialExecutor { get }
    func makeEngine() throws(EngineError) -> any WebEngine
}
