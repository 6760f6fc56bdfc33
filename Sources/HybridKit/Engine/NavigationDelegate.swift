import Foundation

/// A navigation the page or the user started, before the engine commits to it.
public struct NavigationAction: Sendable {
    public enum Kind: Sendable, Equatable {
        case linkActivated, formSubmitted, backForward, reload, formResubmitted, other
    }

    public var request: EngineRequest
    public var kind: Kind
    /// Whether the main frame navigates. WKWebView knows; WebKitGTK 4.1 does not say which frame a navigation
    /// action targets, so its adapter reports `true` for every unnamed frame — do not rely on it there
    /// (``NavigationDelegate/didStartNavigation(to:)`` is main-frame only on both engines).
    public var isMainFrame: Bool
    /// The page asked for a new window (`target=_blank`, `window.open`).
    public var opensNewWindow: Bool
    public var isUserGesture: Bool
    /// Whether ``isMainFrame`` is the engine's knowledge rather than a guess (false on WebKitGTK).
    public var isMainFrameKnown: Bool

    public init(
        request: EngineRequest, kind: Kind = .other, isMainFrame: Bool = true, opensNewWindow: Bool = false,
        isUserGesture: Bool = false, isMainFrameKnown: Bool = true
    ) {
        self.request = request
        self.kind = kind
        self.isMainFrame = isMainFrame
        self.opensNewWindow = opensNewWindow
        self.isUserGesture = isUserGesture
        self.isMainFrameKnown = isMainFrameKnown
    }
}

public enum NavigationActionPolicy: Sendable, Equatable { case allow, cancel }

/// A response the engine received for a navigation, before it shows it.
public struct NavigationResponse: Sendable {
    public var url: URL
    public var statusCode: Int
    public var mimeType: String?
    public var isMainFrame: Bool
    public var canShowMIMEType: Bool
    /// Response header fields, in order (for `Content-Disposition`); empty when the engine does not give them.
    public var headers: [(name: String, value: String)]
    /// The engine's reading of `Content-Disposition`'s filename, when there is one.
    public var suggestedFilename: String?

    public init(
        url: URL, statusCode: Int, mimeType: String?, isMainFrame: Bool, canShowMIMEType: Bool,
        headers: [(name: String, value: String)] = [], suggestedFilename: String? = nil
    ) {
        self.url = url
        self.statusCode = statusCode
        self.mimeType = mimeType
        self.isMainFrame = isMainFrame
        self.canShowMIMEType = canShowMIMEType
        self.headers = headers
        self.suggestedFilename = suggestedFilename
    }

    /// The first value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

public enum NavigationResponsePolicy: Sendable, Equatable { case allow, cancel, download }

/// Hears about a web view's navigations. Called on the engine's actor; every method has a default.
@EngineActor
public protocol NavigationDelegate: AnyObject, Sendable {
    func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy
    func decidePolicy(for response: NavigationResponse) -> NavigationResponsePolicy
    func didStartNavigation(to url: URL?)
    /// The main frame committed to a new document: scripts of the old one will not run again.
    func didCommitNavigation(to url: URL?)
    func didFinishNavigation(to url: URL?)
    func didFailNavigation(to url: URL?, error: String)
    func webProcessDidTerminate(reason: WebProcessTerminationReason)
}

public enum WebProcessTerminationReason: Sendable, Equatable { case crashed, exceededMemoryLimit, terminatedByAPI }

extension NavigationDelegate {
    public func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy { .allow }
    public func decidePolicy(for response: NavigationResponse) -> NavigationResponsePolicy {
        response.canShowMIMEType ? .allow : .download
    }
    public func didStartNavigation(to url: URL?) {}
    public func didCommitNavigation(to url: URL?) {}
    public func didFinishNavigation(to url: URL?) {}
    public func didFailNavigation(to url: URL?, error: String) {}
    public func webProcessDidTerminate(reason: WebProcessTerminationReason) {}
}
