import Foundation
import HybridPackages
import Testing

@Suite struct ResolverTests {
    let fixture: Fixture
    let store: PackageStore

    init() throws {
        fixture = try Fixture()
        store = try fixture.openStore()
        let installer = fixture.installer(store)
        try installer.install(packageAt: try fixture.pack("1.0.0"))
        // A second package serving a longer prefix inside the first one's.
        try installer.install(
            packageAt: try fixture.pack(
                "1.0.0", files: ["index.html": "cart", "cart.js": "cart()"], id: "com.example.cart",
                serves: ["https://APP.example.com/shop/cart"]))
    }

    @Test func longestPrefixWins() throws {
        let resolver = PackageResolver(store: store)
        #expect(
            try resolver.resolve("https://app.example.com/shop/cart/cart.js")?.package.id
                == "com.example.cart")
        #expect(
            try resolver.resolve("https://app.example.com/shop/app.js")?.package.id == "com.example.shop")
        #expect(try resolver.resolve("https://app.example.com/shop/cart")?.entry.path == "index.html")
        #expect(
            try resolver.resolve("https://app.example.com/shop/cart")?.package.id == "com.example.cart")
        // Prefixes match whole components only, hosts case-insensitively, queries are ignored.
        #expect(try resolver.resolve("https://app.example.com/shopping/app.js") == nil)
        #expect(
            try resolver.resolve("HTTPS://App.Example.com/shop/app.js?v=2#x")?.entry.path == "app.js")
        #expect(try resolver.resolve("https://other.example.com/shop/app.js") == nil)
        #expect(try resolver.resolve("https://app.example.com/shop/")?.entry.path == "index.html")
        #expect(
            try resolver.resolve("https://app.example.com/shop/assets/logo.svg")?.mimeType
                == "image/svg+xml")
    }

    @Test(arguments: [
        "https://app.example.com/shop/../secret", "https://app.example.com/shop/%2e%2e/secret",
        "https://app.example.com/shop/assets/%2E%2E/%2e%2e/x",
        "https://app.example.com/shop/..%2fsecret",
        "https://app.example.com/shop/a%5c..%5cb", "https://app.example.com/shop//etc/passwd",
        "https://app.example.com/shop/a%00b",
    ])
    func traversalIsRefusedWithATypedError(url: String) {
        #expect(throws: PackageRequestError.self) { try PackageResolver(store: store).resolve(url) }
    }

    @Test func spaFallbackServesTheEntryPageForRoutesOnly() throws {
        let plain = PackageResolver(store: store)
        let spa = PackageResolver(store: store, spaFallback: true)
        #expect(try plain.resolve("https://app.example.com/shop/orders/42") == nil)
        let fallback = try spa.resolve("https://app.example.com/shop/orders/42")
        #expect(fallback?.entry.path == "index.html")
        #expect(fallback?.isFallback == true)
        #expect(try spa.resolve("https://app.example.com/shop/missing.js") == nil)
    }

    @Test func activationIsSeenByTheNextLookup() throws {
        let resolver = PackageResolver(store: store)
        try fixture.installer(store).install(packageAt: try fixture.pack("1.1.0"))
        let file = try #require(try resolver.resolve("https://app.example.com/shop/app.js"))
        #expect(try String(contentsOf: file.fileURL, encoding: .utf8) == "console.log('1.1.0')")
    }
}
