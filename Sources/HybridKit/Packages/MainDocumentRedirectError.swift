import Foundation

/// Why a main document's redirect was not followed.
public enum MainDocumentRedirectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The chain went on past `limit` hops (a loop, most likely); `url` is the last URL asked for.
    case tooManyRedirects(url: URL, limit: Int)

    public var description: String {
        switch self {
        case .tooManyRedirects(let url, let limit):
            "\(url.absoluteString) redirected more than \(limit) times in a row; the server is probably looping"
        }
    }
}
