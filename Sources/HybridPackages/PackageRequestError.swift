/// Why a URL request into a package was refused (the scheme handler answers these with 400, not the network).
public enum PackageRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    /// `%2F` or `%5C` in the path: an encoded separator could smuggle a path past normalisation.
    case encodedSeparator(String)
    case invalidPercentEncoding(String)
    case unsafePath(String, PackagePathError)

    public var description: String {
        switch self {
        case .invalidURL(let url):
            return "'\(url)' is not an absolute URL with a host."
        case .encodedSeparator(let url):
            return
                "'\(url)' contains an encoded '/' or '\\' (%2F, %5C), which package paths do not allow."
        case .invalidPercentEncoding(let url):
            return "'\(url)' has invalid percent-encoding."
        case .unsafePath(let url, let reason):
            return "'\(url)' was refused: \(reason)"
        }
    }
}
