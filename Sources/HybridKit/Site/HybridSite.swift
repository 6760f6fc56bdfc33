import Foundation
import HybridPackages

/// A site, declared once: its https address, the custom scheme its pages are served under, where its package
/// comes from and, during development, where its requests go. The container derives the rest from it: the
/// package route, the development origin, the load URL and the origin access rules name (``BridgeAccess/site``).
///
///     let site = try HybridSite("https://shop.example/", package: .store(store), developmentServer: server)
///     let shop = try HybridContainer(site: site, modules: [cart], factory: GTKEngineFactory())
///     try await shop.loadAndWait(site.url)   // https://shop.example/ loads as hybrid://shop.example/ from the package
///
/// The page's security origin is the custom-scheme one (``pageOrigin``, `hybrid://shop.example`): that is what
/// the signed package's pages are, and what ``BridgeAccess/site`` grants. The live https origin (unsigned content
/// from the network, or a frame of it) is another origin and is never granted what the site's pages may do.
public struct HybridSite: Sendable {
    /// Where the site's package comes from.
    public enum Package: Sendable {
        /// A store the app keeps (updated by an update client), or a directory during development
        /// (`DevelopmentPackage`).
        case store(any PackageSnapshotSource)
        /// The signed package shipped inside the app, installed into a store at `store` (a directory the app
        /// owns) unless that store already serves it or a newer version (see `BundledPackage`).
        case bundled(URL, trustedKey: PackageVerificationKey, store: URL)

        /// ``bundled(_:trustedKey:store:)`` with the public key read from the file `hybrid keygen` wrote
        /// (`shop.pub`), shipped in the app beside the package.
        public static func bundled(_ zip: URL, publicKeyFile: URL, store: URL) throws(KeyFileError) -> Package {
            .bundled(zip, trustedKey: try PackageVerificationKey.load(from: publicKeyFile), store: store)
        }
    }

    /// The site's address: `https://shop.example/` (a path is allowed: `https://example.com/shop/`).
    public let address: URLPrefix
    /// Its pages' scheme and the package route derived from the address.
    public let route: OfflineRoute
    /// What serves the site's files.
    public let packages: any PackageSnapshotSource
    /// The store the site's package is installed in, when it is one (for an update client to install into).
    public let store: PackageStore?
    /// Where the site's requests go during development; nil: to the site itself.
    public let developmentOrigin: DevelopmentOrigin?
    /// The session the site's pages fetch what the package lacks on, shared by all its containers (each page
    /// gets a fetcher on it with the page's jar), so a page reuses the connections earlier pages opened.
    let pagesSession: PagesSession

    /// - Parameters:
    ///   - address: the site's https (or http) address, as its package's `serves` names it.
    ///   - scheme: the custom scheme its pages are served under (not http or https).
    ///   - package: where its files come from.
    ///   - developmentServer: a server the site's own requests (what the package does not hold: `/api/…`) go to
    ///     instead of the site, while pages and cookies keep the site's origin. Nil in production.
    public init(
        _ address: String, scheme: String = "hybrid", package: Package, developmentServer: URL? = nil
    ) throws(SiteError) {
        guard let prefix = URLPrefix(address), let siteURL = URL(string: prefix.description),
            WebOrigin(siteURL) != nil
        else { throw .invalidAddress(address) }
        do {
            route = try OfflineRoute(scheme: scheme, prefixes: [prefix.description])
        } catch {
            throw .invalidScheme(error)
        }
        self.address = prefix
        if let developmentServer {
            do throws(DevelopmentOriginError) {
                developmentOrigin = try DevelopmentOrigin(sending: siteURL, to: developmentServer)
            } catch {
                throw .invalidDevelopmentServer(error)
            }
        } else {
            developmentOrigin = nil
        }
        pagesSession = PagesSession()
        switch package {
        case .store(let source):
            packages = source
            store = source as? PackageStore
        case .bundled(let zip, let key, let root):
            let opened = try Self.install(zip, trustedKey: key, root: root, for: prefix)
            packages = opened
            store = opened
        }
    }

    /// The URL a host loads: the site's address (`https://shop.example/`), which the container serves from the
    /// package under ``route``'s scheme.
    public var url: URL { URL(string: address.description) ?? URL(fileURLWithPath: "/") }

    /// The security origin of the site's pages as the engine reports it (`hybrid://shop.example`): what access
    /// rules and page messages are checked against.
    public var pageOrigin: String {
        // address.origin is `https://host[:port]`, lowercased: only the scheme changes.
        let hostAndPort = address.origin.split(separator: "://", maxSplits: 1).last ?? ""
        return route.scheme + "://" + hostAndPort
    }

    /// The URL the engine loads for `url`: a URL under the site's address on the site's scheme; the same URL when
    /// it already is on the site's scheme and host; nil for anything else (another site, another scheme).
    public func pageURL(for url: URL) -> URL? {
        let mapping = OfflineURLMapping(route: route)
        if url.scheme?.lowercased() == route.scheme {
            return mapping.packageURL(for: url).map(mapping.isUnderPrefix) == true ? url : nil
        }
        return mapping.isUnderPrefix(url) ? mapping.customURL(for: url) : nil
    }

    private static func install(
        _ zip: URL, trustedKey: PackageVerificationKey, root: URL, for prefix: URLPrefix
    ) throws(SiteError) -> PackageStore {
        do {
            let bundled = BundledPackage(at: zip, trustedKey: trustedKey)
            let manifest = try bundled.manifest()
            guard manifest.serves.contains(where: { URLPrefix($0)?.origin == prefix.origin }) else {
                throw SiteError.packageServesAnotherSite(id: manifest.id, serves: manifest.serves, site: prefix)
            }
            let store = try PackageStore(root: root, trustedKey: trustedKey)
            try bundled.install(into: store)
            return store
        } catch let error as SiteError {
            throw error
        } catch let error as PackageError {
            throw .package(zip, error)
        } catch {
            throw .package(zip, .fileSystem(operation: "install", path: zip.path, reason: "\(error)"))
        }
    }
}
