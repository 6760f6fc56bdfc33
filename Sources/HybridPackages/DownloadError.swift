/// Why a package download did not complete. A partial file is kept (except after a checksum mismatch)
/// so the next attempt resumes.
public enum DownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source stopped sending before the promised size.
    case truncated(location: String, received: Int64, expected: Int64)
    /// The source failed repeatedly; `reason` is the last failure.
    case transferFailed(location: String, received: Int64, reason: String)
    /// The source sent more bytes than asked for.
    case protocolViolation(location: String, reason: String)
    /// All bytes arrived but their SHA-256 is wrong; the partial file was deleted.
    case checksumMismatch(location: String)
    case fileSystem(path: String, reason: String)

    public var description: String {
        switch self {
        case .truncated(let location, let received, let expected):
            return
                "The download of '\(location)' stopped at \(received) of \(expected) bytes; try again later (it will resume)."
        case .transferFailed(let location, let received, let reason):
            return
                "The download of '\(location)' failed after \(received) bytes (\(reason)); it will resume on the next try."
        case .protocolViolation(let location, let reason):
            return "The server for '\(location)' misbehaved: \(reason)"
        case .checksumMismatch(let location):
            return
                "The download of '\(location)' does not match its published SHA-256; it was discarded and will restart."
        case .fileSystem(let path, let reason):
            return "Cannot write the download to '\(path)': \(reason)"
        }
    }
}
