import Foundation

/// The limits a network page's natively fetched main document is held to (see <doc:FirstScreenPrefetching>).
public struct NetworkPagePolicy: Sendable, Equatable {
    /// Bytes the document may have; a larger one is dropped and the engine loads the page itself.
    public var maximumDocumentBytes: Int
    /// How long a load waits for the whole document, counted from the host's `load`: past it the engine loads the
    /// page itself (a slow or dripping server costs the page at most this, on top of its own load).
    public var maximumWait: Duration
    /// How long after it started a document fetched on a tap (``NetworkPagePrefetcher/prefetch(for:)``) may still
    /// be shown.
    public var timeToLive: Duration
    /// Documents in flight or waiting at once; the oldest are dropped beyond it.
    public var maximumEntries: Int
    /// Whether origins and redirects may name loopback, private or link-local addresses (development servers).
    public var allowsPrivateAddresses: Bool

    public init(
        maximumDocumentBytes: Int = 4 * 1024 * 1024, maximumWait: Duration = .seconds(3),
        timeToLive: Duration = .seconds(30), maximumEntries: Int = 8, allowsPrivateAddresses: Bool = false
    ) {
        self.maximumDocumentBytes = maximumDocumentBytes
        self.maximumWait = maximumWait
        self.timeToLive = timeToLive
        self.maximumEntries = maximumEntries
        self.allowsPrivateAddresses = allowsPrivateAddresses
    }
}

/// A network-page configuration the host got wrong; thrown where it is made.
public enum NetworkPageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An origin that is not an http(s) origin (`https://news.example`, no path, query or credentials).
    case invalidOrigin(String)
    /// A loopback, private or link-local origin while the policy does not allow them.
    case privateAddress(String)
    /// No origins listed: nothing would ever be fetched natively.
    case noOrigins

    public var description: String {
        switch self {
        case .invalidOrigin(let origin):
            "network-page origin '\(origin)' is not an http(s) origin: write it as 'https://host' or "
                + "'https://host:port', without a path, query or user"
        case .privateAddress(let origin):
            "network-page origin '\(origin)' is a loopback or private address: set "
                + "NetworkPagePolicy.allowsPrivateAddresses in development only"
        case .noOrigins:
            "NetworkPagePrefetcher needs at least one origin whose pages it fetches natively"
        }
    }
}

/// Why a network page was loaded by the engine itself rather than from the natively fetched document: logged with
/// what to change, counted as a ``HybridMetrics/networkPages`` `fallback`.
public enum NetworkPageFallback: Sendable, Equatable, CustomStringConvertible {
    /// The native fetch failed (the engine's own load will show the engine's error, if any).
    case failed(String)
    /// The whole document did not arrive within ``NetworkPagePolicy/maximumWait``.
    case slow(Duration)
    /// The document is larger than ``NetworkPagePolicy/maximumDocumentBytes``.
    case tooLarge(limit: Int)
    /// A redirect to another origin than the page's.
    case crossOriginRedirect(String)
    /// A redirect or the page's URL names a loopback or private address the policy does not allow.
    case privateAddress(String)
    /// A redirect response set cookies: the next hop would have to send them as the engine would.
    case redirectSetsCookies(String)
    /// Not a 200 answer with an HTML document the engine would show (another status, type, or a download).
    case notAnHTMLDocument(String)
    /// A response header the engine applies that this engine's simulated load cannot carry.
    case headerNotCarried(String)
    /// The document varies (`Vary`) on a header the engine sends with its own request and the native fetch did not
    /// send as the engine would (`Accept-Language`; `User-Agent` unless the prefetcher was given the engine's), or
    /// on everything (`*`).
    case variesOnWhatTheEngineSends(String)
    /// A `no-store` document fetched earlier on a tap: it is not kept for later.
    case noStoreKept
    /// The engine refused the simulated load.
    case engineRefused(String)

    public var description: String {
        switch self {
        case .failed(let why): "the native fetch failed (\(why))"
        case .slow(let wait):
            "the document did not arrive within \(wait): raise NetworkPagePolicy.maximumWait if the server is "
                + "legitimately slow"
        case .tooLarge(let limit):
            "the document is over \(limit) bytes: raise NetworkPagePolicy.maximumDocumentBytes, or leave such "
                + "pages to the engine"
        case .crossOriginRedirect(let to):
            "it redirects to \(to), another origin: link to the final URL, or list that origin and link to it"
        case .privateAddress(let url):
            "\(url) is a loopback or private address: set NetworkPagePolicy.allowsPrivateAddresses in development"
        case .redirectSetsCookies(let url):
            "the redirect from \(url) sets cookies: link to the final URL to get the native fetch"
        case .notAnHTMLDocument(let what): "the answer is not a 200 HTML document (\(what))"
        case .variesOnWhatTheEngineSends(let name):
            "the document varies (Vary) on '\(name)', which the engine sends with its own request and the native "
                + "fetch did not send as it would: the page is loaded the plain way, so it shows the engine's variant "
                + "(give the prefetcher the engine's User-Agent, or vary HTML responses on fewer headers)"
        case .headerNotCarried(let name):
            "the response carries '\(name)', which the engine must apply and its simulated load cannot carry: "
                + "the page is loaded the plain way (drop the header from HTML responses to get the native fetch)"
        case .noStoreKept:
            "the document fetched on the tap is no-store and is not kept: the page is loaded the plain way"
        case .engineRefused(let why): "the engine refused the simulated load (\(why))"
        }
    }
}
