/// Why a key file could not be read or written.
public enum KeyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case wrongKind(path: String, expected: String, found: String)
    case malformed(path: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "Cannot read key file '\(path)': \(reason)"
        case .wrongKind(let path, let expected, let found):
            return
                "'\(path)' holds a \(found) key but a \(expected) key is needed; `hybrid keygen` writes both files."
        case .malformed(let path):
            return
                "'\(path)' is not a HybridKit key file (expected one line: '<kind> <base64 of 32 bytes>')."
        case .unwritable(let path, let reason):
            return "Cannot write key file '\(path)': \(reason)"
        }
    }
}
