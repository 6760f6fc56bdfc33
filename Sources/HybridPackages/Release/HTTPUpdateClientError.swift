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
        }
    }
}
