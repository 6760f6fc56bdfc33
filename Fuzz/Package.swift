// swift-tools-version:6.2
// Coverage-guided fuzzers (libFuzzer) for HybridKit's parsers of untrusted input. A package of its own so that
// `swift build` of HybridKit never builds them; run them with ../scripts/fuzz.sh (see README.md).
import PackageDescription

// libFuzzer supplies `main`; each target defines LLVMFuzzerTestOneInput with @_cdecl instead.
let fuzzerSettings: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

func fuzzer(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies, swiftSettings: fuzzerSettings)
}

let package = Package(
    name: "HybridKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "HybridKit", path: ".."),
        // Already in HybridKit's graph; named here to count what ZIPFoundation yields after the validator accepts.
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // Already in HybridKit's graph; the harnesses silence its log lines (one per refused input).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // Only the library products each fuzzer needs, so no NIO, Hummingbird or WebKitGTK is built.
        fuzzer("fuzz-range", [.product(name: "HybridPackages", package: "HybridKit")]),
        fuzzer(
            "fuzz-zip",
            [
                .product(name: "HybridPackages", package: "HybridKit"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        fuzzer("fuzz-signed-documents", [.product(name: "HybridPackages", package: "HybridKit")]),
        fuzzer("fuzz-set-cookie", [.product(name: "HybridCookies", package: "HybridKit")]),
        fuzzer("fuzz-inbound-message", [.product(name: "HybridKit", package: "HybridKit")]),
        fuzzer("fuzz-body-channel", [.product(name: "HybridKit", package: "HybridKit")]),
        fuzzer("fuzz-binary-call", [.product(name: "HybridKit", package: "HybridKit")]),
        fuzzer("fuzz-http-cache", [.product(name: "HybridKit", package: "HybridKit")]),
        fuzzer("fuzz-prefetch", [.product(name: "HybridKit", package: "HybridKit")]),
        fuzzer("fuzz-prefetch-message", [.product(name: "HybridKit", package: "HybridKit")]),
        fuzzer("fuzz-json-string", [.product(name: "HybridKit", package: "HybridKit")]),
        // ZIPFoundation: the harness deflates raw record streams so mutations reach the control-triple checks.
        fuzzer(
            "fuzz-delta",
            [
                .product(name: "HybridPackages", package: "HybridKit"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
