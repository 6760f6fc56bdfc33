// swift-tools-version:6.2
import PackageDescription

// WebKitGTK exists on Linux only. Everything bound to it (the GTK adapter, the demo, the benchmarks, the test servers,
// `hybrid demo`/`bench`/`run`, the integration tests) is reached only through dependencies conditioned on Linux, and
// its code sits in `#if canImport(CWebKitGTK)`, which holds exactly where such a dependency brings WebKitGTK's C
// module in. On a Mac those targets build empty, and the products an iOS app uses never reach them.
//
// HYBRIDKIT_APPLE_LAYOUT=1 lays the package out here as a Mac sees it (the Linux-conditioned dependencies dropped,
// no pkg-config): scripts/check-apple-layout.sh builds that, so CI on Linux catches a Mac build broken by GTK code.
let appleLayout = Context.environment["HYBRIDKIT_APPLE_LAYOUT"] == "1"

// SwiftPM asks pkg-config about a system library whenever a plugin is shown the package, even where no target
// depends on it, so the name is given only where WebKitGTK can exist. The manifest runs on the building machine:
// cross-compiling from a Mac to Linux is not supported for the GTK targets.
#if os(Linux)
let webKitGTKPkgConfig: String? = appleLayout ? nil : "webkit2gtk-4.1"
#else
let webKitGTKPkgConfig: String? = nil
#endif

/// Tells the targets whose WebKitGTK-less branch refuses to compile on Linux (`#error`, so a broken condition cannot
/// silently drop the demo or the GTK tests) that the Apple layout builds that branch on purpose.
let appleLayoutSettings: [SwiftSetting] = appleLayout ? [.define("HYBRIDKIT_APPLE_LAYOUT")] : []

/// A dependency on a WebKitGTK-bound target, for Linux builds only (none in the Apple layout).
func linuxOnly(_ name: String) -> [Target.Dependency] {
    appleLayout ? [] : [.target(name: name, condition: .when(platforms: [.linux]))]
}

let package = Package(
    name: "HybridKit",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        // What an app imports: the engine-free container and its features, and one engine adapter.
        .library(name: "HybridKit", targets: ["HybridKit"]),
        .library(name: "HybridKitGTK", targets: ["HybridKitGTK"]),
        .library(name: "HybridKitWK", targets: ["HybridKitWK"]),
        // For apps' own tests and engine adapters: test doubles of the port and the engine conformance suite.
        .library(name: "HybridKitTesting", targets: ["HybridKitTesting"]),
        // Used on their own by tools and servers that host no web view.
        .library(name: "HybridCookies", targets: ["HybridCookies"]),
        .library(name: "HybridPackages", targets: ["HybridPackages"]),
        .library(name: "HybridUpdateServer", targets: ["HybridUpdateServer"]),
        .library(name: "HybridNetwork", targets: ["HybridNetwork"]),
        .executable(name: "hybrid", targets: ["hybrid"]),
        .executable(name: "hybrid-tools", targets: ["hybrid-tools"]),
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
        // `swift package generate-documentation`: the DocC catalogs of the public modules (CI builds them with
        // warnings as errors).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // `hybrid types` reads an app's Swift to write TypeScript declarations of its modules: the parser only (no
        // macros, no compiler plugin), in a target no library product links.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "602.0.0"),
    ],
    targets: [
        // Engine-free: the port (Engine), the bridge and its page runtime, pages with navigation policy and
        // white-screen recovery, the container and pool, and the page features (packages, request bodies,
        // cookies, remote configuration). Engines come in through WebEngineFactory.
        .target(
            name: "HybridKit",
            dependencies: [
                "HybridPackages", "HybridCookies",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            // Each capability's page runtime, beside its Swift (see ARCHITECTURE.md).
            resources: [
                .copy("Bridge/BridgeRuntime"), .copy("Bridge/Types"), .copy("RequestBodies/HooksRuntime"),
                .copy("Cookies/CookieRuntime"), .copy("Packages/PackagesRuntime"),
                .copy("Prefetch/PrefetchRuntime"),
            ]
        ),
        // Test doubles of the port (FakeEngine, RecordingTask, FakeCookieStore), a directory of fixture pages served
        // under a custom scheme (DirectoryServing), and the engine conformance suite every adapter runs. Engine-free
        // like HybridKit: an adapter's tests bring the engine.
        .target(name: "HybridKitTesting", dependencies: ["HybridKit"]),
        // WebKitGTK's C API, through pkg-config (Linux only: see webKitGTKPkgConfig).
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: webKitGTKPkgConfig,
            providers: [.apt(["libwebkit2gtk-4.1-dev"])]
        ),
        // The WebKitGTK adapter: implements the port on the GTK thread. Its web-process extension (C, in
        // WebProcessExtension/, loaded by WebKit's web processes, never linked) is compiled by the plugin below
        // into a resource of this target, so every build of the adapter carries it.
        .target(
            name: "HybridKitGTK",
            dependencies: [
                "HybridKit",
                .product(name: "Logging", package: "swift-log"),
            ] + linuxOnly("CWebKitGTK"),
            exclude: ["WebProcessExtension"],
            plugins: ["WebProcessExtensionBuilder"]
        ),
        .plugin(name: "WebProcessExtensionBuilder", capability: .buildTool()),
        // The WKWebView adapter: Apple's WebKit on Apple platforms; on Linux, WebKitStandIn, so it is compiled and
        // tested here against WebKit's API and rules, with WebKitGTK behind them.
        .target(
            name: "HybridKitWK",
            dependencies: [
                "HybridKit",
                .product(name: "Logging", package: "swift-log"),
            ] + linuxOnly("WebKitStandIn")
        ),
        // Linux only (every file is `#if os(Linux)`; never a dependency elsewhere, never named `WebKit`): the WebKit
        // API HybridKitWK uses, with WebKit's isolation, sendability and run-time exceptions, over any engine behind
        // the port (WebKitGTK in the tests).
        .target(name: "WebKitStandIn", dependencies: ["HybridKit"]),
        // Offline packages: format, signing, installer, store, resolver, release documents
        // (see docs/package-format.md). Crypto and zip, no web view: the package tools build on it alone.
        .target(
            name: "HybridPackages",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // RFC 6265 cookie jar (Foundation only); HybridKit's cookie feature keeps the engine in sync with it.
        .target(
            name: "HybridCookies",
            resources: [
                .copy("Resources/public_suffix_list.dat"),
                .copy("Resources/PUBLIC_SUFFIX_LIST_LICENSE.txt"),
            ]
        ),
        // The native proxy behind the request hooks' "full proxy" strategy: AsyncHTTPClient, because it keeps
        // response headers as sent (repeated Set-Cookie lines, reason phrase), streams with backpressure and lets
        // the proxy follow redirects itself; URLSession on Linux merges header lines and hides the reason phrase.
        .target(
            name: "HybridNetwork",
            dependencies: [
                "HybridKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // The body channel's loopback listener (already in the graph through AsyncHTTPClient).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        // The update server behind `hybrid serve`: releases and range-capable downloads over a directory of zips, and
        // the static release tree `hybrid publish` writes.
        .target(
            name: "HybridUpdateServer",
            dependencies: [
                "HybridPackages",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // Entity tags of release-tree indexes (their SHA-256).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The demo behind `hybrid demo`: the bridge tour page and each container capability driven from native
        // code, with the pages it loads (and the `test/` pages the integration tests load beside them). A tool:
        // `hybrid` and the WebKitGTK tests depend on it, no library product does.
        .target(
            name: "HybridDemo",
            dependencies: [
                "HybridKit", "HybridNetwork", "HybridPackages", "HybridCookies",
                // DirectoryServing: the pages under `app://demo/`.
                "HybridKitTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
            ] + linuxOnly("HybridKitGTK") + linuxOnly("HybridTestServers"),
            resources: [.copy("Pages")]
        ),
        // The benchmarks behind `hybrid bench …`, with the pages they load. A tool like the demo: `hybrid` and the
        // tests of its judges depend on it, no library product does.
        .target(
            name: "HybridBench",
            dependencies: [
                "HybridKit", "HybridNetwork", "HybridPackages", "HybridCookies",
                // DirectorySchemeHandler and DirectoryServing: the bench pages under `app://`.
                "HybridKitTesting",
                // `hybrid bench updates` reads the stored size of each entry of a diff package.
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                // `hybrid bench firstscreen` declares its command here (the CLI lists it).
                "HybridTools", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + linuxOnly("HybridKitGTK") + linuxOnly("HybridTestServers"),
            resources: [.copy("Pages")]
        ),
        // The repository's test servers and judges, shared by the WebKitGTK and stand-in tests and reused by the
        // demo and the benchmarks: the loopback HTTP server (Hummingbird, which HybridKitTesting does not bring),
        // the body echo routes, and the request-bodies conformance lab and judge with their pages. Bound to
        // WebKitGTK (the lab drives a GTKWebView), so reached only through linuxOnly like the demo.
        .target(
            name: "HybridTestServers",
            dependencies: [
                "HybridKit", "HybridNetwork", "HybridPackages",
                .product(name: "Hummingbird", package: "hummingbird"),
                // So the loopback servers shut down gracefully.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // The body echo's SHA-256 of what arrived.
                .product(name: "Crypto", package: "swift-crypto"),
            ] + linuxOnly("HybridKitGTK"),
            path: "Tests/HybridTestServers",
            resources: [.copy("Pages")]
        ),
        // The commands that need no web view (pack, verify, diff, serve, config, cookies, keygen), shared by both
        // executables: `hybrid-tools` has only these and builds without WebKitGTK; `hybrid` adds the demo and the
        // benchmarks, which drive the engine, so a developer has one tool and a release machine needs no engine.
        .target(
            name: "HybridTools",
            dependencies: [
                "HybridKit", "HybridPackages", "HybridCookies", "HybridUpdateServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `hybrid types`: TypeScript declarations of an app's bridge modules and the Codable types they take and
        // return, read from its Swift sources. A tool like the demo: `hybrid` depends on it, no library product does,
        // so an app never links swift-syntax.
        .target(
            name: "HybridTypeScript",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        .executableTarget(
            name: "hybrid",
            dependencies: [
                "HybridKit", "HybridTools", "HybridNetwork", "HybridTypeScript",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ] + linuxOnly("HybridKitGTK") + linuxOnly("HybridDemo") + linuxOnly("HybridBench"),
            swiftSettings: appleLayoutSettings
        ),
        .executableTarget(
            name: "hybrid-tools",
            dependencies: ["HybridTools", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Helper for the cookie crash-safety test: writes the jar in a loop until it is SIGKILLed.
        .executableTarget(name: "cookie-writer", dependencies: ["HybridCookies"]),
        // Helper for the exit-status test: a minimal headless app that must exit with its own status and output.
        .executableTarget(
            name: "gtk-exit-child", dependencies: linuxOnly("HybridKitGTK"), swiftSettings: appleLayoutSettings),
        // Helper for the package crash test: installs a package and pauses until it is SIGKILLed.
        .executableTarget(name: "package-install-child", dependencies: ["HybridPackages"]),

        // What several test targets share (child processes, executables built beside the tests, zip images).
        .target(
            name: "HybridTestSupport", dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/HybridTestSupport"),
        .testTarget(
            name: "HybridKitTests",
            dependencies: [
                // `hybrid config sign` is tested by running the built executable.
                "HybridKit", "HybridKitTesting", "HybridTestSupport", "hybrid",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            // Pages type-checked against hybrid.d.ts with tsc (TypeDeclarationsTests), not resources.
            exclude: ["Bridge/TypeScript"]
        ),
        .testTarget(
            name: "HybridKitGTKTests",
            dependencies: [
                "HybridKit", "HybridNetwork", "HybridUpdateServer",
                // The engine conformance suite, run against WebKitGTK.
                "HybridKitTesting",
                // `hybrid demo` is run as a built executable against tour pages that stop or fail; gtk-exit-child
                // as a minimal app whose exit status must be its own.
                "HybridTestSupport", "hybrid", "gtk-exit-child",
                // Extra routes (redirects) on the loopback origin.
                .product(name: "Hummingbird", package: "hummingbird"),
                // The telemetry test records which log labels spoke.
                .product(name: "Logging", package: "swift-log"),
                // HybridDemo: the tour, its rigs and the test pages; HybridBench: the benchmarks' own judges and
                // ProcessMemory; HybridTestServers: loopback origins and the request-bodies conformance suite.
            ] + linuxOnly("HybridKitGTK") + linuxOnly("HybridDemo") + linuxOnly("HybridBench")
                + linuxOnly("HybridTestServers"),
            swiftSettings: appleLayoutSettings
        ),
        // HybridKitWK on Linux (stand-in over WebKitGTK); on a Mac, WKWebViewHostTests run against the real WKWebView.
        .testTarget(
            name: "HybridKitWKTests",
            dependencies: [
                "HybridKit", "HybridKitWK",
                // The engine conformance suite, run through the adapter.
                "HybridKitTesting",
                // HybridDemo: PageEvents and the test pages; HybridTestServers: loopback origins and the body echo.
            ] + linuxOnly("WebKitStandIn") + linuxOnly("HybridKitGTK") + linuxOnly("HybridDemo")
                + linuxOnly("HybridTestServers")
        ),
        // The generator behind `hybrid types` on sample sources; the Shop example's generated file and a page
        // type-checked against it are in HybridKitTests (TypeScript pages live there).
        .testTarget(name: "HybridTypeScriptTests", dependencies: ["HybridTypeScript", "HybridTestSupport"]),
        .testTarget(
            name: "HybridCookiesTests", dependencies: ["HybridTestSupport", "HybridCookies", "cookie-writer", "hybrid"]),
        .testTarget(
            name: "HybridPackagesTests",
            dependencies: [
                // `hybrid pack`, `verify`, `diff`, `serve` and `bench` are tested by running the built executable.
                "HybridTestSupport", "HybridPackages", "package-install-child", "hybrid", "hybrid-tools",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .testTarget(
            name: "HybridNetworkTests",
            dependencies: [
                // HybridTestSupport: raw connections to the body channel's listener; HybridKitTesting: hops.
                "HybridNetwork", "HybridKit", "HybridKitTesting", "HybridTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "HybridUpdateServerTests",
            dependencies: [
                // The HTTP update client talks to the server; HybridTestSupport for hostile zips in its directory.
                "HybridUpdateServer", "HybridKit", "HybridPackages", "HybridTestSupport",
                // The release-channel tests serve what the real `hybrid-tools publish` writes with nginx.
                "hybrid-tools",
                // A server event loop of its own (ServerFixture).
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The compiler holds the line on isolation: sending a value that is not `Sendable` to another isolation is an error
// in every target of this package, including where Swift 6.3 reports it only as a warning (a value whose
// conformance is isolated, SE-0470: the route ARCHITECTURE.md's "Threads" section takes for the port).
// Only where the package is built as itself: Xcode (26.3) and SwiftPM's swiftbuild system compile a remote dependency
// with `-suppress-warnings`, which the driver refuses beside `-Werror` (swiftlang/swift-package-manager#10192), so an
// app that depends on HybridKit must not get the setting. Remote dependencies are checked out under `…/checkouts/`
// (SwiftPM's `.build/checkouts`, Xcode's `SourcePackages/checkouts`); HYBRIDKIT_SENDING_ERRORS=1 or 0 decides instead.
let sendingErrors =
    Context.environment["HYBRIDKIT_SENDING_ERRORS"].map { $0 == "1" }
    ?? !Context.packageDirectory.contains("/checkouts/")
if sendingErrors {
    for target in package.targets {
        switch target.type {
        case .regular, .executable, .test:
            target.swiftSettings = (target.swiftSettings ?? []) + [.treatWarning("SendingRisksDataRace", as: .error)]
        default: continue
        }
    }
}
