#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import HybridKit

/// The actor for everything that touches WebKitGTK: the engine's actor, whose thread GTK's main loop runs on
/// once ``GTKRuntime`` has taken it over.
public typealias GTKActor = EngineActor
#endif
