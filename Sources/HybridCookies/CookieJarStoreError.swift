import Foundation

/// Failures of a `CookieJarStore`, each saying what to do about it.
public enum CookieJarStoreError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// The file exists but is not a cookie jar this code can read.
    case corrupt(path: String, reason: String)
    /// The file was written by a newer format version.
    case unsupportedVersion(path: String, version: Int)
    case readFailed(path: String, reason: String)
    /// `step` names the system call that failed (open, write, fsync, rename…), `code` is errno.
    case writeFailed(path: String, step: String, code: Int32)
    case encodingFailed(reason: String)

    public var description: String {
        switch self {
        case .corrupt(let path, let reason):
            return "Cookie jar file \(path) is corrupt (\(reason)). Open the jar with "
                + "corruptDataPolicy .quarantineAndStartEmpty to move it aside and start empty."
        case .unsupportedVersion(let path, let version):
            return "Cookie jar file \(path) has format version \(version), newer than this build reads; "
                + "it was written by a newer app version. Quarantine it or upgrade."
        case .readFailed(let path, let reason):
            return "Cannot read cookie jar file \(path): \(reason). Check the file's permissions."
        case .writeFailed(let path, let step, let code):
            let message = String(cString: strerror(code))
            return "Cannot save cookie jar to \(path): \(step) failed (\(message)). "
                + "The previous file is intact; check free space and permissions, then flush again."
        case .encodingFailed(let reason):
            return "Cannot encode the cookie jar: \(reason)."
        }
    }

    public var errorDescription: String? { description }
}
