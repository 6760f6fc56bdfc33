import Foundation
import HybridPackages

/// One request a page's first screen makes, declared so native code can start it while the view starts: a
/// method, a URL template and the headers it needs (see <doc:FirstScreenPrefetching>).
///
/// Templates name values native code supplies when the page opens, in braces: the host's (``FirstScreenPrefetcher``'s
/// `values`, say `{user}` and `{locale}`), `{path}` (the path of the URL being opened) and `{query.NAME}` (an item of
/// its query). A value is percent-encoded before it is put in, so it can add text but never structure (another
/// host, another path segment, a header line).
public struct PrefetchRequest: Codable, Sendable, Equatable {
    /// The page's `fetch` credentials mode the prefetch stands for: it answers only a request made with the same.
    public enum Credentials: String, Codable, Sendable {
        case omit
        case sameOrigin = "same-origin"
        case include
    }

    /// GET or HEAD: a prefetch must be safe to make and then throw away.
    public var method: String
    /// A path under the site (`/api/feed?lang={locale}`) or an absolute URL on the site's origin.
    public var url: String
    /// Header names and value templates the page's own request sends too (`Accept`, `X-Client`…).
    public var headers: [String: String]
    public var credentials: Credentials

    public init(
        method: String = "GET", url: String, headers: [String: String] = [:], credentials: Credentials = .sameOrigin
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.credentials = credentials
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decodeIfPresent(String.self, forKey: .method) ?? "GET"
        url = try container.decode(String.self, forKey: .url)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        credentials = try container.decodeIfPresent(Credentials.self, forKey: .credentials) ?? .sameOrigin
    }
}

/// The requests one page of a site declares.
public struct PagePrefetch: Codable, Sendable, Equatable {
    /// The page's path under the site (`/`, `/item.html`), or a prefix ending in `*` (`/item/*`).
    public var page: String
    public var requests: [PrefetchRequest]

    public init(page: String, requests: [PrefetchRequest]) {
        self.page = page
        self.requests = requests
    }

    func covers(path: String) -> Bool {
        if page.hasSuffix("*") { return path.hasPrefix(page.dropLast()) }
        return path == page || (page == "/" && path == "/index.html")
    }
}

/// A site's prefetch declarations and where they came from (which decides nothing about trust: every source is
/// checked the same way, see ``PrefetchPolicy``).
public struct PrefetchDeclarations: Sendable, Equatable {
    public enum Source: String, Sendable, Equatable {
        /// Written by the host in code.
        case configuration
        /// Read from the site's signed package (``packageFile``).
        case package
        /// Read from remote configuration.
        case remoteConfig
    }

    /// Where a package declares its prefetches: a JSON file at the site's address (`{"pages": [...]}`).
    public static let packageFile = "hybrid-prefetch.json"

    public var pages: [PagePrefetch]
    public var source: Source

    public init(pages: [PagePrefetch], source: Source = .configuration) {
        self.pages = pages
        self.source = source
    }

    /// Declarations from JSON (`{"pages": [{"page": "/", "requests": [{"url": "/api/x"}]}]}`), as a package or
    /// remote configuration ships them.
    public static func decode(_ data: Data, source: Source) throws(PrefetchError) -> PrefetchDeclarations {
        struct File: Decodable { var pages: [PagePrefetch] }
        guard data.count <= PrefetchPolicy.maximumDeclarationBytes else {
            throw .tooLarge(what: "the declarations", bytes: data.count, limit: PrefetchPolicy.maximumDeclarationBytes)
        }
        do {
            return PrefetchDeclarations(pages: try JSONDecoder().decode(File.self, from: data).pages, source: source)
        } catch {
            throw .unreadable(source: source.rawValue, reason: "\(error)")
        }
    }

    /// The declarations `site`'s active package ships in ``packageFile``, or nil when it ships none.
    public static func fromPackage(of site: HybridSite) throws(PrefetchError) -> PrefetchDeclarations? {
        let resolver = PackageResolver(store: site.packages, spaFallback: false)
        let address =
            site.address.description.hasSuffix("/") ? site.address.description : site.address.description + "/"
        let file: ResolvedPackageFile?
        do {
            file = try resolver.resolve(address + packageFile)
        } catch {
            throw .unreadable(source: Source.package.rawValue, reason: "\(error)")
        }
        guard let file else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: file.fileURL)
        } catch {
            throw .unreadable(source: Source.package.rawValue, reason: "\(error)")
        }
        return try decode(data, source: .package)
    }
}
