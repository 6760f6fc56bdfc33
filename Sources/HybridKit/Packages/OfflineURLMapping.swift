import Foundation
import HybridPackages

/// Maps between the http(s) URLs packages serve and the custom-scheme URLs the engine loads, both ways.
///
/// Only the scheme is swapped; host, port, path, query and fragment are kept byte for byte (percent-encoding
/// included, so the resolver sees exactly what the page asked for).
public struct OfflineURLMapping: Sendable, Equatable {
    public let route: OfflineRoute

    public init(route: OfflineRoute) {
        self.route = route
    }

    /// `https://shop.example.com/app/x.js` → `hybrid://shop.example.com/app/x.js`; nil for non-http(s) URLs.
    public func customURL(for packageURL: URL) -> URL? {
        guard let scheme = packageURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return nil
        }
        return swapScheme(of: packageURL, to: route.scheme)
    }

    /// `hybrid://shop.example.com/app/x.js` → `https://shop.example.com/app/x.js`.
    ///
    /// The custom URL does not say whether it stood for http or https, so the route's prefixes decide: the
    /// longest prefix containing the URL, else any prefix on the same host and port, else https.
    public func packageURL(for customURL: URL) -> URL? {
        guard customURL.scheme?.lowercased() == route.scheme,
            let components = URLComponents(url: customURL, resolvingAgainstBaseURL: false),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let hostPort = components.port.map { "\(host):\($0)" } ?? host
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let sameHost = route.prefixes.filter { $0.origin.hasSuffix("://" + hostPort) }
        let containing = sameHost.filter { (path + "/").hasPrefix($0.path) }.max { $0.path.count < $1.path.count }
        let scheme = (containing ?? sameHost.first).flatMap { $0.origin.components(separatedBy: "://").first }
        return swapScheme(of: customURL, to: scheme ?? "https")
    }

    /// Whether a package URL's origin is one the route names: the only origins a miss may be fetched from.
    public func isRouted(_ packageURL: URL) -> Bool {
        guard let prefix = URLPrefix(packageURL.absoluteString) else { return false }
        return route.prefixes.contains { $0.origin == prefix.origin }
    }

    /// Whether an http(s) URL is under one of the route's prefixes (whole path components), so it is the
    /// package's to serve.
    public func isUnderPrefix(_ packageURL: URL) -> Bool {
        guard let target = URLPrefix(packageURL.absoluteString) else { return false }
        return route.prefixes.contains { $0.origin == target.origin && target.path.hasPrefix($0.path) }
    }

    private func swapScheme(of url: URL, to scheme: String) -> URL? {
        // Text surgery rather than URLComponents.scheme, which may re-encode the rest of the URL.
        let text = url.absoluteString
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return URL(string: scheme + text[colon...])
    }
}
