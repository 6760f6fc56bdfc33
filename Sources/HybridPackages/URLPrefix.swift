import Foundation

/// A normalised URL prefix a package serves: lowercase `scheme://host[:port]` plus a path ending in '/'.
///
/// Matching happens on whole path components, so `https://h/app/` never captures `https://h/application`.
public struct URLPrefix: Sendable, Hashable, CustomStringConvertible {
    /// `scheme://host[:port]`, lowercased.
    public let origin: String
    /// Percent-encoded path, starting and ending with '/'.
    public let path: String

    public init?(_ text: String) {
        guard let parts = URLPrefix.split(text) else { return nil }
        origin = parts.origin
        path = parts.path.hasSuffix("/") ? parts.path : parts.path + "/"
    }

    public var description: String { origin + path }

    /// The percent-encoded remainder of `requestPath` under this prefix, or nil when it is not underneath.
    func remainder(of requestPath: String) -> Substring? {
        if requestPath.hasPrefix(path) { return requestPath.dropFirst(path.count) }
        if requestPath + "/" == path { return "" }
        return nil
    }

    /// Splits a URL into its normalised origin and percent-encoded path (query and fragment dropped).
    static func split(_ text: String) -> (origin: String, path: String)? {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        var origin = scheme + "://" + host
        if let port = components.port { origin += ":\(port)" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        guard path.hasPrefix("/") else { return nil }
        return (origin, path)
    }
}
