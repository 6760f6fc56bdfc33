// swift-tools-version:6.2
import PackageDescription

// The shop: HybridKit's starter app. `Shop` is the WebKitGTK host (runs here: `swift run Shop`); `ShopiOS` is the
// same app as a SwiftUI host on WKWebView (on Linux only its container code compiles, against the WebKit stand-in).
// Both share `ShopCart`: the native `cart` module and the shop's pages.
let package = Package(
    name: "Shop",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        // An app names HybridKit by URL and version; the example uses the checkout it lives in.
        .package(name: "HybridKit", path: "../.."),
        // Only for the stand-in backend the example runs on loopback; your app talks to your own server.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .target(name: "ShopCart", dependencies: [.product(name: "HybridKit", package: "HybridKit")]),
        .executableTarget(
            name: "Shop",
            dependencies: [
                "ShopCart", .product(name: "HybridKitGTK", package: "HybridKit"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            resources: [.copy("web")]),
        .target(name: "ShopiOS", dependencies: ["ShopCart", .product(name: "HybridKitWK", package: "HybridKit")]),
    ],
    swiftLanguageModes: [.v6]
)
