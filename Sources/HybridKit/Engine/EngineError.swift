import Foundation

/// Failures reported by an engine adapter.
public enum EngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A script threw or could not be evaluated; the message is the engine's.
    case javaScript(String)
    /// The engine rejected the scheme (reserved schemes such as http, https and file cannot be handled).
    case schemeNotAllowed(String)
    /// The operation needs a web view that has already been torn down.
    case viewClosed
    /// The engine cannot do what was asked (say, load a POST with a body on WebKitGTK).
    case unsupported(String)
    /// The engine failed in a way the adapter can only describe.
    case engine(String)
    /// The container cannot load this URL (a custom scheme nothing serves): the URL and what to change.
    case notLoadable(String, String)

    public var description: String {
        switch self {
        case .javaScript(let message): "JavaScript error: \(message)"
        case .schemeNotAllowed(let scheme):
            "the engine does not allow a handler for the '\(scheme)' scheme; use a custom scheme such as 'app'"
        case .viewClosed: "the web view has been closed; create a new one"
        case .unsupported(let what): "not supported by this engine: \(what)"
        case .engine(let message): "engine error: \(message)"
        case .notLoadable(let url, let advice): "cannot load \(url): \(advice)"
        }
    }
}
