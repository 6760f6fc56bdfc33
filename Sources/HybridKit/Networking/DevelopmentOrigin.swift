import Foundation

/// Sends the requests a page makes to one origin (a package route's, `https://shop.example.com`) to another server
/// instead — a development or staging server, or a loopback test server — while everything else keeps the first
/// origin: cookies are read and stored for it, a redirect that points at the server comes back under it, and the
/// page never sees the server's address. Give it to ``URLSessionNetworkFetcher/init(timeout:cookies:sendingTo:)``
/// and that fetcher to ``PackageServing/network``.
public struct DevelopmentOrigin: Sendable, Equatable {
    /// The origin pages and cookies keep.
    public let origin: WebOrigin
    /// Where its requests go.
    public let server: WebOrigin

    /// Throws when either URL has no http(s) origin: a mistake here must stop the app at the line that made it,
    /// not send development requests to production without a word.
    public init(sending origin: URL, to server: URL) throws(DevelopmentOriginError) {
        guard let pageOrigin = WebOrigin(origin) else { throw .notAnHTTPOrigin(origin, role: .page) }
        guard let serverOrigin = WebOrigin(server) else { throw .notAnHTTPOrigin(server, role: .server) }
        self.origin = pageOrigin
        self.server = serverOrigin
    }

    /// `url` as sent: on the server when it is on ``origin``, else unchanged.
    public func outbound(_ url: URL) -> URL { Self.move(url, from: origin, to: server) }

    /// `url` as the page sees it: on ``origin`` when it is on the server, else unchanged.
    public func inbound(_ url: URL) -> URL { Self.move(url, from: server, to: origin) }

    /// A `Location` value as the page sees it: absolute ones on the server come back under ``origin``; relative
    /// ones resolve against the page's URL, which is already on it.
    public func inbound(location: String) -> String {
        guard let url = URL(string: location), url.scheme != nil else { return location }
        return inbound(url).absoluteString
    }

    private static func move(_ url: URL, from: WebOrigin, to: WebOrigin) -> URL {
        guard WebOrigin(url) == from,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        components.scheme = to.scheme
        components.host = to.host.contains(":") ? "[\(to.host)]" : to.host
        components.port = to.port == (to.scheme == "https" ? 443 : 80) ? nil : to.port
        return components.url ?? url
    }
}

/// Why a ``DevelopmentOrigin`` could not be made.
public enum DevelopmentOriginError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which of the two URLs it was.
    public enum Role: String, Sendable {
        case page = "the origin the page keeps"
        case server = "the server its requests go to"
    }

    /// The URL has no http(s) origin (a custom scheme such as `hybrid://`, a file URL, no host).
    case notAnHTTPOrigin(URL, role: Role)

    public var description: String {
        switch self {
        case .notAnHTTPOrigin(let url, .page):
            "DevelopmentOrigin: \(url.absoluteString) (\(Role.page.rawValue)) has no http(s) origin; name the site's https "
                + "URL (https://shop.example/), not the scheme the page is served under"
        case .notAnHTTPOrigin(let url, .server):
            "DevelopmentOrigin: \(url.absoluteString) (\(Role.server.rawValue)) has no http(s) origin; name a server "
                + "such as http://127.0.0.1:8080"
        }
    }
}
