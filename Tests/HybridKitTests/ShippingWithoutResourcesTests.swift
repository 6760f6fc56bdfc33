import Foundation
import HybridCookies
import HybridKitTesting
import HybridTestSupport
import Testing

@testable import HybridKit

/// An app shipped without HybridKit's resource bundles gets typed errors that say what to ship, not a crash
/// (SwiftPM's `Bundle.module` stops the process when its bundle is missing).
///
/// The test binary is copied alone into an empty folder and runs this suite again there, in child mode
/// (`HYBRIDKIT_CHILD_WITHOUT_RESOURCES`): there it must find no bundle and get the errors; here the copy must exit 0
/// having run those checks. The same binary beside its bundles (this run) finds them.
@Suite struct ShippingWithoutResourcesTests {
    static let childMode = ProcessInfo.processInfo.environment["HYBRIDKIT_CHILD_WITHOUT_RESOURCES"] == "1"

    @Test func withoutItsBundlesAnAppGetsTypedErrorsNotACrash() async throws {
        if Self.childMode {
            try await Self.checksWithoutBundles()
            return
        }
        #expect(PackageResources.bundle(of: "HybridKit") != nil, "beside its bundles, the test binary finds them")
        let executable = try #require(
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), "this runs on Linux")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hk-no-resources-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("app-without-resources")
        try Self.copyExecutable(from: URL(fileURLWithPath: executable), to: copy)
        var environment = ProcessInfo.processInfo.environment
        environment["HYBRIDKIT_CHILD_WITHOUT_RESOURCES"] = "1"
        let result = try await ChildProcess.run(
            copy,
            arguments: [
                "--testing-library", "swift-testing", "--filter",
                "ShippingWithoutResourcesTests/withoutItsBundlesAnAppGetsTypedErrorsNotACrash",
            ],
            environment: environment, limit: .seconds(120))
        let output = String(decoding: result.standardOutput + result.standardError, as: UTF8.self)
        #expect(result.exitStatus == 0, "the copy without bundles: \(output.suffix(3000))")
        #expect(output.contains("withoutItsBundlesAnAppGetsTypedErrorsNotACrash"), "the copy ran the checks")
        #expect(!output.contains("could not load resource bundle"), "\(output.suffix(3000))")
    }

    /// Copies through a descriptor opened close-on-exec: a child another test spawns meanwhile must not inherit
    /// a write descriptor of the copy, or running the copy fails with ETXTBSY for as long as that child lives.
    static func copyExecutable(from source: URL, to destination: URL) throws {
        let bytes = try Data(contentsOf: source)
        let descriptor = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    /// In the copy: no bundle is found, and every place that needs one says what to ship.
    @EngineActor static func checksWithoutBundles() async throws {
        #expect(PackageResources.bundle(of: "HybridKit") == nil)
        #expect(PackageResources.bundle(of: "HybridCookies") == nil)
        do {
            _ = try PublicSuffixList.bundled()
            Issue.record("the public suffix list was read without its bundle")
        } catch {
            #expect("\(error)".contains("HybridKit_HybridKit.resources"), "\(error)")
        }
        // The jar still works: from the system's copy of the list where there is one, else failing closed.
        let shared = PublicSuffixList.shared
        #expect(shared.ruleCount > 1000 || shared.isPublicSuffix("example.com"), "the jar fails open without a list")
        let engine = FakeEngine()
        do {
            _ = try BridgeEngine(engine: engine)
            Issue.record("a bridge was made without its runtime script")
        } catch {
            #expect("\(error)".contains("HybridKit_HybridKit.resources"), "\(error)")
        }
    }
}
