import Foundation

/// The signed package an app ships inside itself (packed by `hybrid pack` in a build step), installed into a
/// store on first launch and again when an app update brings a newer one.
///
/// It never replaces what updates did since: a store whose active version is the bundled one or newer, or that
/// holds the bundled version at all (boot safety may have rolled it back), is left as it is. The signature and
/// every file are verified before anything is written, as for every install.
public struct BundledPackage: Sendable {
    /// What ``install(into:)`` did.
    public enum Outcome: Sendable, Equatable {
        /// The bundled version was installed and is now active.
        case installed(SemanticVersion)
        /// The store already holds the bundled version (active or rolled back): nothing was written.
        case alreadyInstalled(SemanticVersion)
        /// An update installed a newer version, which keeps serving.
        case newerActive(SemanticVersion)
    }

    public let url: URL
    public let trustedKey: PackageVerificationKey

    public init(at url: URL, trustedKey: PackageVerificationKey) {
        self.url = url
        self.trustedKey = trustedKey
    }

    /// The bundled package's signed manifest (its signature verified with ``trustedKey``). Reads the manifest
    /// and its signature only: this runs on every launch, and the files are verified when they are installed.
    public func manifest() throws(PackageError) -> PackageManifest {
        try PackageArchiveReader(url: url).readSignedManifest(trustedKey: trustedKey).manifest
    }

    /// Installs the bundled package into `store` unless the store already serves it or something newer.
    @discardableResult
    public func install(into store: PackageStore) throws(PackageError) -> Outcome {
        let manifest = try manifest()
        if let active = store.activeVersion(manifest.id), active > manifest.version { return .newerActive(active) }
        if store.installedVersions(manifest.id).contains(manifest.version) {
            return .alreadyInstalled(manifest.version)
        }
        // The app was built with this package, so it is compatible by construction: the manifest's own minimum is
        // the running container's version as far as this install is concerned.
        try PackageInstaller(
            store: store, trustedKey: trustedKey, containerVersion: manifest.minimumContainerVersion
        ).install(packageAt: url)
        return .installed(manifest.version)
    }
}
