import Foundation

/// Loads a URL in the engine's main frame.
///
/// The handler uses it to move a main document to the final URL of a redirect. A plain closure keeps the handler
/// engine-free (unit tests record the URL) and lets it avoid holding the engine.
public typealias EngineNavigator = @EngineActor @Sendable (URL) -> Void

extension PackageSchemeHandler {
    /// Loads URLs in `engine`, held weakly: the engine owns the handler, so a strong reference would be a cycle.
    public nonisolated static func navigator(for engine: any WebEngine) -> EngineNavigator {
        { [weak engine] url in
            // Only GET without a body can fail to load, and this request is one.
            try? engine?.load(EngineRequest(url: url))
        }
    }
}
