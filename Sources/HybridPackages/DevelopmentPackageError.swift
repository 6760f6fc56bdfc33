/// Why a directory cannot be served as a ``DevelopmentPackage``; each message says what to do.
public enum DevelopmentPackageError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(path: String)
    case notADirectory(path: String)
    case noEntryPage(directory: String, entry: String)
    case tooManyFiles(directory: String, limit: Int)
    case tooLarge(directory: String, limit: Int64)
    case unreadable(path: String, reason: String)
    case invalidPrefix(String)
    case invalidManifest(String)

    public var description: String {
        switch self {
        case .notFound(let path):
            "'\(path)' does not exist; give the directory holding the app's index.html"
        case .notADirectory(let path):
            "'\(path)' is not a directory; give the directory holding the app's index.html (or a signed .zip with "
                + "--public-key, or an http(s) URL)"
        case .noEntryPage(let directory, let entry):
            "'\(directory)' has no \(entry); add one, or name the entry page with --entry"
        case .tooManyFiles(let directory, let limit):
            "'\(directory)' holds more than \(limit) files; serve the app's build output directory, not its sources"
        case .tooLarge(let directory, let limit):
            "'\(directory)' holds more than \(limit / (1 << 20)) MB; serve the app's build output directory, not "
                + "its sources"
        case .unreadable(let path, let reason):
            "cannot read '\(path)' (\(reason)); check its permissions"
        case .invalidPrefix(let text):
            "'\(text)' is not an http(s) URL prefix such as 'https://shop.example.com/app/'"
        case .invalidManifest(let reason):
            "the directory cannot be served as a package: \(reason)"
        }
    }
}
