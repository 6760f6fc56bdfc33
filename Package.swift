// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HybridKit",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "HybridCore", targets: ["HybridCore"]),
        .library(name: "HybridGTK", targets: ["HybridGTK"]),
        .library(name: "HybridWK", targets: ["HybridWK"]),
        // Loaded by WebKitGTK's web processes (dlopen), never linked: see Sources/HybridWebExtension.
        .library(name: "HybridWebExtension", type: .dynamic, targets: ["HybridWebExtension"]),
        .library(name: "HybridCookies", targets: ["HybridCookies"]),
        .library(name: "HybridCookieSync", targets: ["HybridCookieSync"]),
        .library(name: "HybridPackages", targets: ["HybridPackages"]),
        .library(name: "HybridPackagesHTTP", targets: ["HybridPackagesHTTP"]),
        .library(name: "HybridOffline", targets: ["HybridOffline"]),
        .library(name: "HybridContainer", targets: ["HybridContainer"]),
        .library(name: "HybridContainerGTK", targets: ["HybridContainerGTK"]),
        .library(name: "HybridInterception", targets: ["HybridInterception"]),
        .library(name: "HybridUpdateServer", targets: ["HybridUpdateServer"]),
        .library(name: "HybridNetwork", targets: ["HybridNetwork"]),
        .library(name: "HybridConfig", targets: ["HybridConfig"]),
        .executable(name: "hybrid", targets: ["hybrid"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // Already in the graph through Hummingbird; named for the update server's HTTP/1 channel handler.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // Already in the graph through Hummingbird; named so the loopback servers shut down gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // Engine-free logic: the port, the bridge, and the JS runtime it injects.
        .target(
            name: "HybridCore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            resources: [.copy("Resources/js"), .copy("Resources/types")]
        ),
        // WebKitGTK's C API, through pkg-config.
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: "webkit2gtk-4.1",
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]
        ),
        // WebKitGTK's web-process extension API (C only).
        .systemLibrary(name: "CWebKitWebExtension", pkgConfig: "webkit2gtk-web-extension-4.1"),
        // The web-process extension that stamps each frame's messages with its real URI.
        .target(name: "HybridWebExtension", dependencies: ["CWebKitWebExtension"]),
        // The WebKitGTK adapter: implements the port on the GTK thread.
        .target(
            name: "HybridGTK",
            dependencies: [
                "HybridCore", "CWebKitGTK",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The WKWebView adapter (Apple platforms only; compiles to nothing elsewhere).
        .target(name: "HybridWK", dependencies: ["HybridCore"]),
        // Demo pages, the test HTTP server and the benchmark harness shared by the CLI and the tests.
        .target(
            name: "HybridTour",
            dependencies: [
                "HybridCore", "HybridGTK", "HybridOffline", "HybridPackages", "HybridContainer", "HybridContainerGTK",
                "HybridCookies", "HybridCookieSync", "HybridInterception", "HybridNetwork", "HybridConfig",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Pages")]
        ),
        .executableTarget(
            name: "hybrid",
            dependencies: [
                "HybridCore", "HybridGTK", "HybridTour", "HybridPackages", "HybridUpdateServer", "HybridCookies",
                "HybridNetwork",
                "HybridConfig",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What several test targets share (finding executables built beside the tests).
        .target(name: "HybridTestSupport", path: "Tests/HybridTestSupport"),
        .testTarget(
            name: "HybridCoreTests",
            dependencies: [
                "HybridCore", "HybridContainer", "HybridConfig", "HybridInterception", "HybridPackages",
                "HybridTestSupport",
            ],
            // Pages type-checked against hybrid.d.ts with tsc (TypeDeclarationsTests), not resources.
            exclude: ["TypeScript"]),
        .testTarget(
            name: "HybridGTKTests",
            dependencies: [
                "HybridCore", "HybridGTK", "HybridTour", "HybridOffline", "HybridPackages",
                // `hybrid demo` is run as a built executable against tour pages that stop or fail.
                "HybridTestSupport", "hybrid",
                "HybridContainer", "HybridContainerGTK", "HybridInterception", "HybridNetwork", "HybridConfig",
                // Updates over `hybrid serve`'s server, loaded in the real engine.
                "HybridUpdateServer", "HybridPackagesHTTP",
                // The jar synced with the engine, the scheme handler's fetches and document.cookie.
                "HybridCookies", "HybridCookieSync",
                // Extra routes (redirects) on the loopback origin.
                .product(name: "Hummingbird", package: "hummingbird"),
                // The telemetry test records which log labels spoke.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // RFC 6265 cookie jar (Foundation only); HybridCookieSync keeps everything else in sync with it.
        .target(
            name: "HybridCookies",
            resources: [
                .copy("Resources/public_suffix_list.dat"),
                .copy("Resources/PUBLIC_SUFFIX_LIST_LICENSE.txt"),
            ]
        ),
        // Helper for the cookie crash-safety test: writes the jar in a loop until it is SIGKILLed.
        .executableTarget(name: "cookie-writer", dependencies: ["HybridCookies"]),
        .testTarget(
            name: "HybridCookiesTests", dependencies: ["HybridTestSupport", "HybridCookies", "cookie-writer", "hybrid"]),
        // The jar as the source of truth: the HTTPCookieHandling seam, engine cookie store sync, the
        // document.cookie shim for custom-scheme pages, and the HTTPCookieStorage adapter.
        .target(
            name: "HybridCookieSync",
            dependencies: [
                "HybridCore", "HybridCookies", .product(name: "Metrics", package: "swift-metrics"),
            ],
            resources: [.copy("Resources/js")]
        ),
        .testTarget(name: "HybridCookieSyncTests", dependencies: ["HybridCookieSync", "HybridCookies", "HybridCore"]),
        // Offline packages: format, signing, installer, store, resolver (see docs/package-format.md).
        .target(
            name: "HybridPackages",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Helper for the package crash test: installs a package and pauses until it is SIGKILLed.
        .executableTarget(name: "package-install-child", dependencies: ["HybridPackages"]),
        .testTarget(
            name: "HybridPackagesTests",
            dependencies: [
                // `hybrid pack`, `verify`, `diff`, `serve` and `bench` are tested by running the built executable.
                "HybridTestSupport", "HybridPackages", "package-install-child", "hybrid",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // The HTTP `UpdateClient` (URLSession, byte ranges). Its own target so HybridPackages stays free of
        // FoundationNetworking (libcurl on Linux) and apps with their own networking need not link it.
        .target(name: "HybridPackagesHTTP", dependencies: ["HybridPackages"]),
        // Serves active packages to the engine through a custom scheme, with a network fallback (engine-free).
        // HybridCookies only for its Set-Cookie splitter: URLSession on Linux joins repeated headers with ", ".
        .target(
            name: "HybridOffline",
            dependencies: [
                "HybridCore", "HybridPackages", "HybridCookies",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // One object per page: engine, bridge, packages and features wired together; pool; white-screen recovery.
        // Engine-free: engines come from a WebEngineFactory.
        .target(
            name: "HybridContainer",
            dependencies: [
                "HybridCore", "HybridOffline", "HybridPackages", "HybridInterception", "HybridCookieSync",
                "HybridConfig", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The WebKitGTK factory for the container.
        .target(name: "HybridContainerGTK", dependencies: ["HybridContainer", "HybridCore", "HybridGTK"]),
        .testTarget(name: "HybridOfflineTests", dependencies: ["HybridOffline", "HybridCore", "HybridPackages"]),
        // Request hooks (XHR, fetch, beacons, forms), the body store and the scheme handler that re-attaches
        // bodies or hands requests to native networking (engine-free).
        .target(
            name: "HybridInterception",
            dependencies: ["HybridCore", "HybridOffline", .product(name: "Metrics", package: "swift-metrics")],
            resources: [.copy("Resources/js")]
        ),
        .testTarget(name: "HybridInterceptionTests", dependencies: ["HybridInterception", "HybridCore"]),
        // The update server behind `hybrid serve`: releases and range-capable downloads over a directory of zips.
        .target(
            name: "HybridUpdateServer",
            dependencies: [
                "HybridPackages", "HybridPackagesHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HybridUpdateServerTests",
            // HybridTestSupport for ZipImage: hostile zips in the served directory.
            dependencies: [
                "HybridUpdateServer", "HybridPackagesHTTP", "HybridPackages", "HybridTestSupport",
                // A server event loop of its own (ServerFixture).
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The native proxy behind the request hooks' "full proxy" strategy: AsyncHTTPClient, because it keeps
        // response headers as sent (repeated Set-Cookie lines, reason phrase), streams with backpressure and lets
        // the proxy follow redirects itself; URLSession on Linux merges header lines and hides the reason phrase.
        .target(
            name: "HybridNetwork",
            dependencies: [
                "HybridCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .testTarget(
            name: "HybridNetworkTests",
            dependencies: [
                "HybridNetwork", "HybridCore",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // Signed remote configuration (degrade list, hook switches, bridge permissions, scripts): engine-free,
        // signed with the package keys (see docs/remote-config.md).
        .target(
            name: "HybridConfig",
            dependencies: [
                "HybridPackages", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HybridConfigTests",
            dependencies: [
                // `hybrid config sign` is tested by running the built executable.
                "HybridTestSupport", "HybridConfig", "HybridPackages", "hybrid",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
