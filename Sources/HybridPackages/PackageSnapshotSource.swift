/// Where a resolver reads what serves: the installed store (``PackageStore``), or a directory served as it is
/// during development (``DevelopmentPackage``).
public protocol PackageSnapshotSource: Sendable {
    /// The packages that serve right now, read on every request so a change takes effect on the next one.
    func snapshot() -> StoreSnapshot
}

extension PackageStore: PackageSnapshotSource {}
