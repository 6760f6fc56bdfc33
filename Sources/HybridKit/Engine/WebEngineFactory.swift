import Foundation

/// Makes web views for containers and pools, so the container never names an engine.
///
/// Engines are made on the engine's actor, where they are used.
public protocol WebEngineFactory: Sendable {
    @EngineActor func makeEngine() throws(EngineError) -> any WebEngine
}
