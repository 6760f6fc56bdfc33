import Foundation
import HybridKitWK
import ShopCart

/// The shop on WKWebView: the same cart module and package route as the GTK host, with the pages shipped in the
/// app as a package signed at build time (`hybrid pack web --id shop --version 1.0.0 --serves https://shop.example/
/// --key shop.key --out shop.zip` in a build phase) and only the public key inside the app.
@MainActor public enum ShopHost {
    public static let site = "https://shop.example/"

    /// The package store, with the bundled package installed the first time (and after an app update brings a
    /// newer one). The installer verifies the signature and every file before it writes anything.
    public static func store(
        bundledPackage: URL, publicKey: PackageVerificationKey, appVersion: SemanticVersion, root: URL
    ) throws -> PackageStore {
        let store = try PackageStore(root: root, trustedKey: publicKey)
        let bundled = try PackageInspector().inspect(packageAt: bundledPackage)
        if !store.installedVersions(bundled.manifest.id).contains(bundled.manifest.version) {
            try PackageInstaller(store: store, trustedKey: publicKey, containerVersion: appVersion)
                .install(packageAt: bundledPackage)
        }
        return store
    }

    /// The shop's page. Pages load as hybrid://shop.example/…; what the package lacks (/api/…) goes to the real
    /// https://shop.example, with its cookies in the container's jar.
    public static func container(store: PackageStore) throws -> HybridContainer {
        let packages = PackageServing(store: store, route: try OfflineRoute(prefixes: [site]))
        let container = try HybridContainer(
            // The page posts its checks when done (`container.nextMessage("checks")`).
            configuration: ContainerConfiguration(
                modules: [Cart.module()], features: [packages], pageMessages: .origins("hybrid://shop.example")),
            factory: WKEngineFactory(schemes: [packages.route.scheme]))
        if let entry = URL(string: "hybrid://shop.example/") { try container.load(entry) }
        return container
    }
}
