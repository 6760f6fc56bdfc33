import Foundation

/// A page asked for a new window (`target=_blank`, `window.open`).
public struct NewWindowRequest: Sendable, Equatable {
    public var url: URL
    public var isUserGesture: Bool
    /// The page that asked.
    public var openerURL: URL?

    public init(url: URL, isUserGesture: Bool, openerURL: URL?) {
        self.url = url
        self.isUserGesture = isUserGesture
        self.openerURL = openerURL
    }
}

/// Where a new-window request goes. Whatever the choice, the page gets its answer at once (`window.open`
/// returns `null`; the link click completes) and stays where it is unless the choice is ``sameView``.
public enum NewWindowChoice: Sendable, Equatable {
    /// Load the URL in this view, as a plain link would.
    case sameView
    /// Hand it to the host, which may create another container for it.
    case newContainer
    /// Hand it to the host as an ``ExternalLink`` of kind ``ExternalLink/Kind/web`` (system browser).
    case external
    /// Drop it.
    case ignore
}
