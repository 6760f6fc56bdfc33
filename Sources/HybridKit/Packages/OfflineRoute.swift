import HybridPackages

/// Which custom scheme stands for which http(s) URL prefixes.
///
/// `https://shop.example.com/app/x.js` is loaded as `hybrid://shop.example.com/app/x.js`: only the scheme
/// changes, so relative, root-relative and protocol-relative URLs in package pages keep resolving to the same
/// host and path. The prefixes are usually the `serves` prefixes of the packages the app ships; they also say
/// which origins a miss may fall back to over the network (see ``PackageSchemeHandler``).
public struct OfflineRoute: Sendable, Equatable {
    /// The custom scheme the engine hands to the handler (`hybrid`), lowercased.
    public let scheme: String
    /// Normalised http(s) prefixes, in the order given.
    public let prefixes: [URLPrefix]

    public init(scheme: String = "hybrid", prefixes: [String]) throws(OfflineRouteError) {
        let scheme = scheme.lowercased()
        guard !scheme.isEmpty, scheme != "http", scheme != "https" else { throw .reservedScheme(scheme) }
        var parsed: [URLPrefix] = []
        for text in prefixes {
            guard let prefix = URLPrefix(text),
                prefix.origin.hasPrefix("http://") || prefix.origin.hasPrefix("https://")
            else { throw .invalidPrefix(text) }
            parsed.append(prefix)
        }
        self.scheme = scheme
        self.prefixes = parsed
    }
}

/// Why an ``OfflineRoute`` could not be built.
public enum OfflineRouteError: Error, Sendable, Equatable, CustomStringConvertible {
    case reservedScheme(String)
    case invalidPrefix(String)

    public var description: String {
        switch self {
        case .reservedScheme(let scheme):
            "'\(scheme)' cannot be the offline scheme: engines serve http and https themselves; use e.g. 'hybrid'"
        case .invalidPrefix(let text):
            "'\(text)' is not an http(s) URL prefix such as 'https://shop.example.com/app/'"
        }
    }
}
