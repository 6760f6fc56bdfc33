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
    /// The security origin the engine applies to the frame's document, serialized as `self.origin` spells
    /// it: `null` when it is opaque (a sandboxed iframe, a `data:` frame, a CSP sandbox), the creator's origin
    /// for `about:blank` and `srcdoc` frames. This, not ``url``, is the frame's identity: a URL says where a
    /// document came from, not what it may do.
    public var securityOrigin: String
    public var isMainFrame: Bool

    /// - Parameters:
    ///   - url: the sending frame's URL, for logs only (a page controls it).
    ///   - securityOrigin: as the engine enforces it; empty stands for an opaque origin (WebKit's
    ///     `WKSecurityOrigin` has an empty `protocol` then) and is stored as `null`.
    ///   - isMainFrame: whether the main frame sent it.
    public init(url: URL?, securityOrigin: String, isMainFrame: Bool) {
        self.url = url
        self.securityOrigin = securityOrigin.isEmpty ? "null" : securityOrigin.lowercased()
        self.isMainFrame = isMainFrame
    }
}

/// Settles the promise `postMessage` returned, for engines that support replies.
/// Exactly one of the methods takes effect; later calls are ignored. Called on the engine's actor.
@EngineActor
public protocol ScriptMessageReply: AnyObject, Sendable {
    /// Resolves the page's promise with `json` parsed as a JavaScript value.
    func resolve(json: String)
    /// Rejects the page's promise with an `Error` carrying `message`.
    func reject(message: String)
}

/// Receives script messages. Called on the engine's actor.
@EngineActor
public protocol ScriptMessageHandler: AnyObject, Sendable {
    /// `reply` is non-nil when the handler was registered with replies and the engine supports them.
    func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?)
}
