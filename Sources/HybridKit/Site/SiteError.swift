import Foundation
import HybridPackages

/// Why a ``HybridSite`` could not be declared.
public enum SiteError: Error, Sendable, CustomStringConvertible {
    /// The address is not an http(s) URL with a host.
    case invalidAddress(String)
    /// The custom scheme cannot serve pages (http, https, empty).
    case invalidScheme(OfflineRouteError)
    /// The development server is not an http(s) URL.
    case invalidDevelopmentServer(DevelopmentOriginError)
    /// The bundled package could not be verified or installed; the store is unchanged.
    case package(URL, PackageError)
    /// The bundled package serves other origins than the site's: its pages would never be found.
    case packageServesAnotherSite(id: String, serves: [String], site: URLPrefix)

    public var description: String {
        switch self {
        case .invalidAddress(let text):
            "HybridSite: '\(text)' is not a site address; give its https URL, such as https://shop.example/"
        case .invalidScheme(let error): "HybridSite: \(error)"
        case .invalidDevelopmentServer(let error): "HybridSite: \(error)"
        case .package(let url, let error):
            "HybridSite: the bundled package \(url.lastPathComponent) was not installed (the store is unchanged): \(error)"
        case .packageServesAnotherSite(let id, let serves, let site):
            "HybridSite: package '\(id)' serves \(serves.joined(separator: ", ")), not the site \(site); pack it "
                + "with --serves \(site) or declare the site it serves"
        }
    }
}
