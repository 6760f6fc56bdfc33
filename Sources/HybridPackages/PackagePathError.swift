/// Why a path inside a package (or requested from one) was refused.
public enum PackagePathError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case absolute(String)
    case backslash(String)
    case dotComponent(String)
    case emptyComponent(String)
    case controlCharacter(String)

    public var description: String {
        switch self {
        case .empty:
            return "The path is empty; a package file needs a relative path such as 'index.html'."
        case .absolute(let path):
            return "The path '\(path)' is absolute; package paths must be relative to the package root."
        case .backslash(let path):
            return "The path '\(path)' contains a backslash; use '/' as the only separator."
        case .dotComponent(let path):
            return
                "The path '\(path)' contains '.' or '..'; paths may not step outside or around the package."
        case .emptyComponent(let path):
            return "The path '\(path)' contains an empty component ('//' or a trailing '/')."
        case .controlCharacter(let path):
            return "The path '\(path.debugDescription)' contains a control character."
        }
    }
}
