import Foundation
import HybridPackages
import HybridTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Kills a real installing process with SIGKILL and checks the store on the next open.
@Suite(.serialized) struct CrashSafetyTests {
    static func childExecutable() throws -> URL {
        guard let binary = builtExecutable(named: "package-install-child") else { throw CrashTestError.childNotBuilt }
        return binary
    }

    enum CrashTestError: Error, CustomStringConvertible {
        case childNotBuilt
        case childDidNotPause(String)

        var description: String {
            switch self {
            case .childNotBuilt:
                "package-install-child executable not found next to the test binary or in .build/debug;"
                    + " build it with `swift build --build-tests` (plain `swift test` does)"
            case .childDidNotPause(let output):
                "package-install-child exited before pausing; its output: \(output)"
            }
        }
    }

    /// A package big enough that an install is clearly "in the middle" at file 150 of 300.
    static func bigFiles(version: String) -> [String: String] {
        var files = Fixture.files(version: version)
        for index in 0..<296 {
            files["chunks/\(index).js"] = String(repeating: "// \(version) chunk \(index)\n", count: 200)
        }
        return files
    }

    @Test(arguments: ["file:150", "filesWritten", "synced", "committed"])
    func sigkillMidInstallLeavesTheOldVersionServing(pauseAt: String) throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        try fixture.installer(store).install(
            packageAt: try fixture.pack("1.0.0", files: Self.bigFiles(version: "1.0.0")))
        let update = try fixture.pack("2.0.0", files: Self.bigFiles(version: "2.0.0"))
        let publicKey = fixture.url("key.pub")
        try fixture.keyPair.verificationKey.save(to: publicKey)

        let child = Process()
        child.executableURL = try Self.childExecutable()
        child.arguments = [fixture.storeRoot.path, update.path, publicKey.path]
        var environment = ProcessInfo.processInfo.environment
        environment["HYBRID_INSTALL_PAUSE_AT"] = pauseAt
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        var seen = ""
        while !seen.contains("PAUSED") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        guard seen.contains("PAUSED") else {
            child.terminate()
            throw CrashTestError.childDidNotPause(seen)
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGKILL)

        let reopened = try fixture.openStore()
        #expect(reopened.activeVersion("com.example.shop") == "1.0.0")
        let stagingLeft = try FileManager.default.contentsOfDirectory(
            atPath: fixture.storeRoot.appendingPathComponent("com.example.shop/staging").path)
        #expect(stagingLeft.isEmpty)
        if pauseAt == "committed" {
            // Committed but never activated: whole, installed, waiting; nothing to clean.
            #expect(reopened.installedVersions("com.example.shop") == ["1.0.0", "2.0.0"])
        } else {
            #expect(reopened.repairReport.removedStagingDirectories.count == 1)
            #expect(reopened.installedVersions("com.example.shop") == ["1.0.0"])
        }
        // The old version is intact: every file re-hashed against its manifest.
        let deep = try PackageStore(
            root: fixture.storeRoot, trustedKey: fixture.keyPair.verificationKey, integrityCheck: .hashes)
        #expect(deep.repairReport.isClean)
        #expect(deep.activeVersion("com.example.shop") == "1.0.0")
        let page = try #require(
            try PackageResolver(store: deep).resolve(Fixture.serves + "chunks/7.js"))
        #expect(try String(contentsOf: page.fileURL, encoding: .utf8).hasPrefix("// 1.0.0 chunk 7"))

        // And the interrupted update can simply be retried.
        if pauseAt != "committed" {
            try fixture.installer(deep).install(packageAt: update)
            #expect(deep.activeVersion("com.example.shop") == "2.0.0")
        }
    }
}
