import Foundation
import HybridTestSupport
import HybridKit
import HybridPackages
import Testing

/// `hybrid keygen`, `hybrid config sign` and `hybrid config verify`, run as a user would.
@Suite struct ConfigCommandTests {
    func hybrid(_ arguments: [String]) throws -> (output: String, errors: String, status: Int32) {
        let executable = try #require(
            builtExecutable(named: "hybrid"), "the hybrid executable was not built next to the tests")
        let run = try ChildProcess.run(executable, arguments: arguments)
        return (
            String(decoding: run.standardOutput, as: UTF8.self), String(decoding: run.standardError, as: UTF8.self),
            run.exitStatus ?? -1
        )
    }

    @Test func signThenVerifyAndTheAppOpensIt() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("cfg").path
        #expect(try hybrid(["keygen", "--out", keys]).status == 0)
        let document = directory.appendingPathComponent("config.json")
        try SignedConfig.encodeDocument(sampleConfig(version: 12)).write(to: document)
        let signed = directory.appendingPathComponent("config.signed.json")

        let sign = try hybrid(["config", "sign", document.path, "--key", keys + ".private", "--out", signed.path])
        #expect(sign.status == 0, "\(sign.errors)")
        #expect(sign.output.contains("version: 12"))
        let verify = try hybrid(["config", "verify", signed.path, "--key", keys + ".public"])
        #expect(verify.status == 0, "\(verify.errors)")
        #expect(verify.output.contains("OK"))

        let trusted = try PackageVerificationKey.load(from: URL(fileURLWithPath: keys + ".public"))
        #expect(try SignedConfig.open(Data(contentsOf: signed), trusting: trusted) == sampleConfig(version: 12))
    }

    @Test func signRefusesABrokenDocument() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("cfg").path
        #expect(try hybrid(["keygen", "--out", keys]).status == 0)
        var config = sampleConfig(version: 1)
        config.scripts[0].source = "alert('changed after hashing')"
        let document = directory.appendingPathComponent("config.json")
        try SignedConfig.encodeDocument(config).write(to: document)
        let signed = directory.appendingPathComponent("config.signed.json")
        let sign = try hybrid(["config", "sign", document.path, "--key", keys + ".private", "--out", signed.path])
        #expect(sign.status != 0)
        #expect(sign.errors.contains("fix-scroll"))
        #expect(!FileManager.default.fileExists(atPath: signed.path))
    }
}
