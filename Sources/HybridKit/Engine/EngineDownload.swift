import Foundation

/// A response the engine will not show as a page: the host decides what to do with it.
/// The engine adapter never saves it to disk itself.
public struct EngineDownload: Sendable, Equatable {
    public var url: URL
    /// From `Content-Disposition`, the `download` attribute, or the URL's last path component.
    public var suggestedFilename: String?
    public var mimeType: String?

    public init(url: URL, suggestedFilename: String?, mimeType: String?) {
        self.url = url
        self.suggestedFilename = suggestedFilename
        self.mimeType = mimeType
    }
}
