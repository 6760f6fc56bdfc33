import Foundation
import HybridKit

/// A page feature serving the files of a directory under a custom scheme (`app://…` by default) through a
/// ``DirectorySchemeHandler``: fixture pages in a container under test, without packing and signing a package.
public struct DirectoryServing: PageFeature {
    /// The custom scheme the files are served under.
    public let scheme: String
    /// The directory served: `app://<any host>/a/b.html` answers with `root/a/b.html`.
    public let root: URL

    /// Serves the files under `root` at `scheme`.
    public init(scheme: String = "app", root: URL) {
        self.scheme = scheme
        self.root = root
    }

    public var provides: [PageServiceID] { [.servedSchemes] }

    public func build(_ assembly: inout PageAssembly) throws {
        assembly.services[ServedSchemesKey.self, default: []].insert(scheme.lowercased())
        assembly.schemeHandlers[scheme] = DirectorySchemeHandler(root: root)
    }

    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
}
