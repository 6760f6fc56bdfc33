import Foundation

/// A resource of the page (image, script, style, XHR…) that failed to load, as the engine reports it.
public struct SubresourceLoadFailure: Sendable, Equatable {
    public var url: URL?
    /// The engine's message (e.g. "Could not resolve host name").
    public var error: String
    /// The load was cancelled (navigation away, `stop`), not broken: usually not worth reporting.
    public var isCancellation: Bool

    public init(url: URL?, error: String, isCancellation: Bool = false) {
        self.url = url
        self.error = error
        self.isCancellation = isCancellation
    }
}
