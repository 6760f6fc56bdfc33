import Foundation

/// A message a page posted with `window.webkit.messageHandlers.<name>.postMessage(body)`.
public struct ScriptMessage: Sendable {
    /// What the page posted. Pages are untrusted: the body may be anything.
    public enum Body: Sendable, Equatable {
        /// The page posted a string (the bridge runtime always does).
        case string(String)
        /// The page posted something else; here as the engine's JSON rendering of it (or `nil` when it has none).
        case other(json: String?)
    }

    public var name: String
    public var body: Body
    /// The frame that posted, as the engine itself knows it — `nil` when the engine cannot say.
    /// See ``WebEngine/verifiesMessageFrames``.
    public var frame: FrameInfo?

    public init(name: String, body: Body, frame: FrameInfo? = nil) {
        self.name = name
        self.body = body
        self.frame = frame
    }
}

/// A frame as the engine (not the page) reports it.
public struct FrameInfo: Sendable, Equatable {
    /// The frame's document URL (`about:blank` for script-made frames).
    public var url: URL?
    public var isMainFrame: Bool

    public init(url: URL?, isMainFrame: Bool) {
        self.url = url
        self.isMainFrame = isMainFrame
    }
}

/// Settles the promise `postMessage` returned, for engines that support replies.
/// Exactly one of the methods takes effect; later calls are ignored.
public protocol ScriptMessageReply: AnyObject, Sendable {
    /// Resolves the page's promise with `json` parsed as a JavaScript value.
    func resolve(json: String)
    /// Rejects the page's promise with an `Error` carrying `message`.
    func reject(message: String)
}

/// Receives script messages. Called on the engine's executor.
public protocol ScriptMessageHandler: AnyObject, Sendable {
    /// `reply` is non-nil when the handler was registered with replies and the engine supports them.
    func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?)
}
