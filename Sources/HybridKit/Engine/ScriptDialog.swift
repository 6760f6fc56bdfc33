import Foundation

/// A JavaScript dialog a page opened (`alert`, `confirm`, `prompt`, or the before-unload question).
/// The page is blocked until the dialog is answered, so every dialog must get an answer.
public struct ScriptDialog: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case alert
        case confirm
        /// `defaultText` is the second argument of `prompt()`.
        case prompt(defaultText: String)
        /// "Leave this page?" — answered with ``ScriptDialogAnswer/confirmed(_:)`` (true leaves).
        case beforeUnload
    }

    public var kind: Kind
    public var message: String
    /// The main frame's URL when the dialog opened, for hosts that show where it comes from.
    public var pageURL: URL?
    /// The frame that opened the dialog, as the engine knows it; nil when the engine cannot say (WebKitGTK
    /// says only for the prompts of synchronous bridge calls, which its web-process extension stamps).
    public var frame: FrameInfo?

    public init(kind: Kind, message: String, pageURL: URL? = nil, frame: FrameInfo? = nil) {
        self.kind = kind
        self.message = message
        self.pageURL = pageURL
        self.frame = frame
    }
}

/// What the page gets back from a dialog.
public enum ScriptDialogAnswer: Sendable, Equatable {
    /// `alert` was dismissed.
    case dismissed
    /// `confirm` (or before-unload) returns this.
    case confirmed(Bool)
    /// `prompt` returns this text, or `null` when `nil` (the user cancelled).
    case text(String?)
}

/// Answers one ``ScriptDialog``, on the engine's actor; the first call wins, later ones are ignored.
@EngineActor
public protocol ScriptDialogReply: AnyObject, Sendable {
    func answer(_ answer: ScriptDialogAnswer)
}
