import Foundation
import HybridKitWK
import ShopCart

/// The shop on WKWebView: the same site and cart module as the GTK host, with the pages shipped in the app as a
/// package signed at build time (`hybrid pack web --id shop --version 1.0.0 --serves https://shop.example/
/// --key shop.key --out shop.zip` in a build phase) and only the public key inside the app.
@MainActor public enum ShopHost {
    /// The site: its address, and its package installed into `store` the first time (and after an app update
    /// brings a newer one, never over a newer version an update installed). The installer verifies the signature
    /// and every file before it writes anything.
    public static func site(bundledPackage: URL, publicKey: PackageVerificationKey, store: URL) throws -> HybridSite {
        try HybridSite(
            "https://shop.example/", package: .bundled(bundledPackage, trustedKey: publicKey, store: store))
    }

    /// The shop's page and its web view, typed: pages load as hybrid://shop.example/… from the package; what the
    /// package lacks (/api/…) goes to the real https://shop.example, with its cookies in the container's jar. The
    /// page posts its checks when done (`container.nextMessage("checks")`).
    public static func open(_ site: HybridSite) throws -> (container: HybridContainer, webView: WKWebView) {
        let engine = try WKEngineFactory(schemes: [site.route.scheme]).makeWKEngine()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(site: site, modules: [Cart.module()], pageMessages: .site),
            engine: engine)
        try container.load(site.url)
        return (container, engine.webView)
    }
}
