import Foundation

/// What the host last asked the engine to show, so that a dead page can be brought back the right way.
public enum PageLocation: Sendable, Equatable {
    case request(EngineRequest)
    /// File pages come back with `loadFile` (after the process died, `reload` fails for them).
    case file(URL, readAccess: URL)
    case html(String, baseURL: URL?)
}
