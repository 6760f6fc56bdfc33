/// Argument problems the package commands find at run time (after parsing), with what to do about them.
enum PackageCommandError: Error, CustomStringConvertible {
    case wouldOverwrite(path: String)
    case notADirectory(path: String)
    case fileMissing(path: String)

    var description: String {
        switch self {
        case .wouldOverwrite(let path):
            return "'\(path)' already exists; pass --force to replace it (a replaced private key cannot be recovered)."
        case .notADirectory(let path):
            return "'\(path)' is not a directory; pass the folder that holds the package's files."
        case .fileMissing(let path):
            return "'\(path)' does not exist; check the path."
        }
    }
}
