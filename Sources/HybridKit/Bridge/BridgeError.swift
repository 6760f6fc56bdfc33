/// A failure a bridge call ends with. Pages see the same `code` and `message` on their `HybridError`.
public struct BridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// The message could not be read: not a string, malformed head, too large, too deeply nested.
        case badMessage = "bad_message"
        case unknownModule = "unknown_module"
        case unknownMethod = "unknown_method"
        /// The arguments do not decode into the method's argument type.
        case badArguments = "bad_arguments"
        /// The calling page's origin or frame may not call this module.
        case denied
        /// The native handler failed; details stay in the native log.
        case internalError = "internal"
        case timeout
        /// The page navigated away while the call was pending.
        case navigated
        /// The bridge was torn down while the call was pending.
        case closed
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func badMessage(_ message: String) -> BridgeError { BridgeError(.badMessage, message) }
    public static func badArguments(_ message: String) -> BridgeError { BridgeError(.badArguments, message) }
    public static func denied(_ message: String) -> BridgeError { BridgeError(.denied, message) }
    public static func internalError(_ message: String) -> BridgeError { BridgeError(.internalError, message) }
}
