/// What serves right now: the active version of every package and the routing table built from them.
/// Replaced as a whole on each activation, so a reader always sees one consistent set.
public struct StoreSnapshot: Sendable {
    public struct Route: Sendable {
        public let prefix: URLPrefix
        public let package: InstalledPackage
    }

    public let active: [String: InstalledPackage]
    /// All serves prefixes of active packages, longest path first, so the first match is the longest prefix.
    public let routes: [Route]

    init(active: [String: InstalledPackage]) {
        self.active = active
        routes = active.values
            .flatMap { package in package.prefixes.map { Route(prefix: $0, package: package) } }
            .sorted { lhs, rhs in
                lhs.prefix.path.count != rhs.prefix.path.count
                    ? lhs.prefix.path.count > rhs.prefix.path.count
                    : lhs.package.id < rhs.package.id
            }
    }
}
