#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit

/// A page feature serving a directory under a custom scheme: the demo and test pages in a container.
public struct DirectoryServing: PageFeature {
    public let scheme: String
    public let root: URL

    public init(scheme: String = "app", root: URL) {
        self.scheme = scheme
        self.root = root
    }

    /// The tour pages under `app://demo/`; nil when the bundle lost them.
    public static var tourPages: DirectoryServing? { TourPages.directory.map { DirectoryServing(root: $0) } }

    public var provides: [PageServiceID] { [.servedSchemes] }

    public func build(_ assembly: inout PageAssembly) throws {
        assembly.services[ServedSchemesKey.self, default: []].insert(scheme.lowercased())
        assembly.schemeHandlers[scheme] = DirectorySchemeHandler(root: root)
    }

    public func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? { nil }
}
#endif
