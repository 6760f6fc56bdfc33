import Foundation
@testable import HybridKit
import HybridKitTesting
import Testing

/// A site declared once: what it derives (route, page origin, load URLs), and each mistake as an error at the line
/// that made it.
@EngineActor struct SiteTests {
    /// A store with nothing installed: what a site serves does not matter to these tests.
    static let empty = Result {
        try PackageStore(root: URL.temporaryDirectory.appending(path: "site-tests-empty-\(UUID())"))
    }

    func empty() throws -> HybridSite.Package { .store(try Self.empty.get()) }

    func site(_ address: String = "https://shop.example/", scheme: String = "hybrid") throws -> HybridSite {
        try HybridSite(address, scheme: scheme, package: try empty())
    }

    func make(_ configuration: ContainerConfiguration) throws -> (HybridContainer, FakeEngine) {
        let made = ContainerWiringTests.WeakEngines()
        let container = try HybridContainer(
            configuration: configuration, factory: ContainerWiringTests.FakeFactory(made: made))
        return (container, try #require(made.engines.first?.value))
    }

    @Test func theSiteDerivesItsRouteItsPageOriginAndItsLoadURLs() throws {
        let shop = try site("HTTPS://Shop.Example:8443/app")
        #expect(shop.address.description == "https://shop.example:8443/app/")
        #expect(shop.route.scheme == "hybrid")
        #expect(shop.pageOrigin == "hybrid://shop.example:8443")
        #expect(shop.url.absoluteString == "https://shop.example:8443/app/")
        func page(_ text: String) throws -> String? {
            shop.pageURL(for: try #require(URL(string: text)))?.absoluteString
        }
        #expect(try page("https://shop.example:8443/app/cart?x=1#top") == "hybrid://shop.example:8443/app/cart?x=1#top")
        #expect(try page("https://shop.example:8443/app") == "hybrid://shop.example:8443/app")
        #expect(try page("hybrid://shop.example:8443/app/a.js") == "hybrid://shop.example:8443/app/a.js")
        // Whole path components, the exact origin, only the site's own scheme.
        #expect(try page("https://shop.example:8443/application") == nil)
        #expect(try page("https://shop.example/app/") == nil)
        #expect(try page("https://evil.example:8443/app/") == nil)
        #expect(try page("hybrid://evil.example/app/") == nil)
        #expect(try page("other://shop.example:8443/app/") == nil)
    }

    @Test func eachMistakeIsATypedErrorThatSaysWhatToChange() throws {
        #expect {
            try HybridSite("shop.example", package: try empty())
        } throws: { error in
            guard case SiteError.invalidAddress = error else { return false }
            return "\(error)".contains("https://shop.example/")
        }
        #expect {
            try HybridSite("hybrid://shop.example/", package: try empty())
        } throws: { error in
            guard case SiteError.invalidAddress = error else { return false }
            return true
        }
        #expect {
            try HybridSite("https://shop.example/", scheme: "https", package: try empty())
        } throws: { error in
            guard case SiteError.invalidScheme = error else { return false }
            return true
        }
        #expect {
            try HybridSite(
                "https://shop.example/", package: try empty(),
                developmentServer: try #require(URL(string: "hybrid://shop.example")))
        } throws: { error in
            guard case SiteError.invalidDevelopmentServer = error else { return false }
            return "\(error)".contains("http://127.0.0.1:8080")
        }
    }

    @Test func aBundledPackageForAnotherSiteIsRefusedBeforeAnythingIsInstalled() throws {
        let work = URL.temporaryDirectory.appending(path: "site-\(UUID())")
        defer { try? FileManager.default.removeItem(at: work) }
        let pages = work.appending(path: "pages")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        try Data("<p>hi</p>".utf8).write(to: pages.appending(path: "index.html"))
        let keys = PackageKeyPair.generate(), zip = work.appending(path: "p.zip")
        try PackagePacker().pack(
            directory: pages,
            options: PackOptions(
                id: "shop", version: SemanticVersion(major: 1, minor: 0, patch: 0), serves: ["https://other.example/"]),
            keyPair: keys, to: zip)
        let store = work.appending(path: "store")
        #expect {
            try HybridSite(
                "https://shop.example/", package: .bundled(zip, trustedKey: keys.verificationKey, store: store))
        } throws: { error in
            guard case SiteError.packageServesAnotherSite(let id, _, _) = error else { return false }
            return id == "shop" && "\(error)".contains("--serves https://shop.example/")
        }
        #expect(!FileManager.default.fileExists(atPath: store.path))
        // Signed by another key: a typed error, nothing installed.
        #expect {
            try HybridSite(
                "https://other.example/",
                package: .bundled(zip, trustedKey: PackageKeyPair.generate().verificationKey, store: store))
        } throws: { error in
            guard case SiteError.package = error else { return false }
            return true
        }
    }

    @Test func siteAccessNeedsASiteAndIsResolvedToItsPagesOnly() throws {
        let cart = BridgeModule("cart", access: .site) { module in
            module.method("n") { (_: NoArguments, _) in 1 }
        }
        #expect {
            try make(ContainerConfiguration(modules: [cart]))
        } throws: { error in
            guard case ContainerError.siteAccessWithoutSite("cart") = error else { return false }
            return "\(error)".contains("ContainerConfiguration.site")
        }
        #expect {
            try make(ContainerConfiguration(pageMessages: .site))
        } throws: { error in
            guard case ContainerError.siteAccessWithoutSite("pageMessages") = error else { return false }
            return true
        }
        let (container, _) = try make(ContainerConfiguration(site: try site(), modules: [cart]))
        defer { container.close() }
        let modules = container.bridge.modules
        #expect(modules.allowsAccess(to: "cart", origin: "hybrid://shop.example", isMainFrame: true, verified: true))
        #expect(!modules.allowsAccess(to: "cart", origin: "https://shop.example", isMainFrame: true, verified: true))
        #expect(!modules.allowsAccess(to: "cart", origin: "hybrid://shop.example", isMainFrame: false, verified: true))
    }

    @Test func theSiteSAddressLoadsUnderItsSchemeAndAnUnservedSchemeThrows() throws {
        let (container, engine) = try make(ContainerConfiguration(site: try site()))
        defer { container.close() }
        #expect(engine.schemeHandlers["hybrid"] != nil)
        try container.load(try #require(URL(string: "https://shop.example/cart?id=2")))
        try container.load(try #require(URL(string: "https://elsewhere.example/")))
        #expect(
            engine.loadedRequests.map(\.url.absoluteString) == [
                "hybrid://shop.example/cart?id=2", "https://elsewhere.example/",
            ])
        #expect {
            try container.load(try #require(URL(string: "shop://shop.example/")))
        } throws: { error in
            guard case EngineError.notLoadable = error else { return false }
            return "\(error)".contains("served: hybrid")
        }
        #expect(engine.loadedRequests.count == 2)
    }
}
