/// Why the HTTP update source could not answer. `PackageDownloader` retries fetch failures and resumes later.
public enum HTTPUpdateClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a status the protocol does not expect.
    case unexpectedStatus(url: String, status: Int)
    /// The release document could not be decoded or names something unusable.
    case malformedRelease(url: String, reason: String)
    /// A 206 answer for other bytes than the ones asked for.
    case wrongRange(url: String, asked: String, got: String)
    /// The artifact's location is not an http(s) URL.
    case invalidLocation(String)
    /// The request itself failed (DNS, connection, TLS…).
    case transport(url: String, reason: String)
    /// The server declared or sent more bytes than the answer may have (`limit`): an endless or padded body, or
    /// more than the range asked for. Reading stopped at the limit, so memory stays bounded.
    case bodyTooLarge(url: String, limit: Int)
    /// No complete answer within the deadline (`after`): a server dripping bytes, or one that never finishes.
    case timedOut(url: String, after: Duration)

    public var description: String {
        switch self {
        case .unexpectedStatus(let url, let status):
            return
                "The update server answered HTTP \(status) for \(url); check the server's log and its package directory."
        case .malformedRelease(let url, let reason):
            return "The release at \(url) is unusable (\(reason)); is this a HybridKit update server (`hybrid serve`)?"
        case .wrongRange(let url, let asked, let got):
            return
                "The server for \(url) sent bytes \(got) when asked for \(asked); it does not handle Range requests correctly."
        case .invalidLocation(let location):
            return "'\(location)' is not an http(s) URL; the release document must list downloadable URLs."
        case .transport(let url, let reason):
            return "Cannot reach \(url): \(reason). Check the network and the server address."
        case .bodyTooLarge(let url, let limit):
            return
                "The server for \(url) declared or sent more than \(limit) bytes, more than this answer may have; the transfer was stopped and nothing was used. A mirror, CDN or proxy is altering the file: check what it serves for this URL."
        case .timedOut(let url, let after):
            return
                "No complete answer from \(url) within \(after); the transfer was stopped and nothing was installed. Check the network and the mirror, or raise `UpdateTransferLimits` if the link is really this slow."
        }
    }
}
