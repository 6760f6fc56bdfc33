import HybridPackages

/// Offline packages for a page: which store, under which scheme and prefixes.
public struct PackageServing: Sendable {
    public var store: PackageStore
    public var route: OfflineRoute
    public var spaFallback: Bool
    /// Main documents follow redirects by moving the view to the final URL (see ``PackageSchemeHandler``).
    public var movesMainDocumentOnRedirect: Bool
    /// The network behind package misses. Nil: the container makes a URLSession of its own and shuts it down
    /// when it closes (a session holds its delegate until invalidated).
    public var network: (any NetworkFetching)?

    public init(
        store: PackageStore, route: OfflineRoute, spaFallback: Bool = false, movesMainDocumentOnRedirect: Bool = true,
        network: (any NetworkFetching)? = nil
    ) {
        self.store = store
        self.route = route
        self.spaFallback = spaFallback
        self.movesMainDocumentOnRedirect = movesMainDocumentOnRedirect
        self.network = network
    }
}
