#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridPackages

/// A package made on the spot: the files of a folder packed, signed with a fresh key and installed, as an app
/// ships one. Used by the demo and the integration tests.
public enum DemoPackage {
    /// A store under `root` with `site` installed as `id` 1.0.0, serving `serves`.
    public static func install(site: URL, id: String, serves: [String], in root: URL) throws -> PackageStore {
        let keys = PackageKeyPair.generate()
        let version = SemanticVersion(major: 1, minor: 0, patch: 0)
        let zip = root.appendingPathComponent("\(id).zip")
        try PackagePacker().pack(
            directory: site, options: PackOptions(id: id, version: version, serves: serves), keyPair: keys, to: zip)
        let store = try PackageStore(root: root.appendingPathComponent("store"), trustedKey: keys.verificationKey)
        try PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: version)
            .install(packageAt: zip)
        return store
    }
}
#endif
