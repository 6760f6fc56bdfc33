/// What opening the store found and fixed, for logs and tests.
public struct StoreRepairReport: Sendable, Equatable {
    /// Leftover staging directories of interrupted installs or deletions, removed.
    public var removedStagingDirectories: [String] = []
    /// Version directories that were damaged or unreadable, removed: `"<id>/<version>"`.
    public var discardedVersions: [String] = []
    /// Packages whose active pointer was missing, unreadable or pointed at a damaged version, and was repaired.
    public var repairedPointers: [String] = []
    /// Packages with no intact version left, removed from the store (they load from the network again).
    public var discardedPackages: [String] = []

    public var isClean: Bool {
        removedStagingDirectories.isEmpty && discardedVersions.isEmpty && repairedPointers.isEmpty
            && discardedPackages.isEmpty
    }
}
