import Foundation
import HybridPackages
import HybridTestSupport
import Testing

/// `hybrid-tools publish` refuses bad input with a non-zero exit and a reason, and leaves the tree as it was.
@Suite("hybrid publish refusals")
struct PublishCommandTests {
    func run(_ fixture: ReleaseTreeFixture, _ arguments: [String]) async throws -> (status: Int32?, errors: String) {
        let tool = try #require(builtExecutable(named: "hybrid-tools"), "hybrid-tools must be built beside the tests")
        let result = try await ChildProcess.run(tool, arguments: ["publish"] + arguments)
        return (
            result.exitStatus,
            String(decoding: result.standardError, as: UTF8.self)
                + String(decoding: result.standardOutput, as: UTF8.self)
        )
    }

    @Test func refusesBadInputAndKeepsTheTree() async throws {
        let fixture = try ReleaseTreeFixture()
        let package = try fixture.pack("1.0.0")
        try await fixture.publish([package])
        let before = try Data(contentsOf: fixture.indexFile())
        let releaseKey = fixture.url("release.private").path
        let packageKey = fixture.url("package.private").path
        let out = fixture.tree.path
        let cases: [(String, [String], String)] = [
            ("no packages", ["--out", out, "--release-key", releaseKey], "at least one package"),
            ("no package key", [package.path, "--out", out, "--release-key", releaseKey], "--package-key"),
            (
                "missing file",
                ["/nonexistent.zip", "--out", out, "--release-key", releaseKey, "--package-key", packageKey],
                "does not exist"
            ),
            (
                "rollout 101",
                [
                    package.path, "--out", out, "--release-key", releaseKey, "--package-key", packageKey,
                    "--rollout", "101",
                ], "percentage"
            ),
            (
                "bad channel",
                [
                    package.path, "--out", out, "--release-key", releaseKey, "--package-key", packageKey,
                    "--channel", "../x",
                ], "invalid"
            ),
            (
                "bad host version",
                [
                    package.path, "--out", out, "--release-key", releaseKey, "--package-key", packageKey,
                    "--min-host-version", "two",
                ], "min-host-version"
            ),
            (
                "negative expiry",
                [
                    package.path, "--out", out, "--release-key", releaseKey, "--package-key", packageKey,
                    "--expires-in", "-1",
                ], "expires-in"
            ),
            (
                "public key as release key",
                [
                    package.path, "--out", out, "--release-key", fixture.url("release.public").path,
                    "--package-key", packageKey,
                ], "key"
            ),
            (
                "refresh with packages", [package.path, "--out", out, "--release-key", releaseKey, "--refresh"],
                "--refresh"
            ),
            (
                "refresh of an empty channel",
                ["--out", out, "--release-key", releaseKey, "--refresh", "--channel", "beta"],
                "No index"
            ),
        ]
        for (name, arguments, reason) in cases {
            let (status, errors) = try await run(fixture, arguments)
            #expect(status != 0, "\(name) exited 0")
            #expect(errors.contains(reason), "\(name): \(errors)")
        }
        // Another release key cannot raise the sequence of an index it did not sign.
        let otherKey = PackageKeyPair.generate()
        try otherKey.save(privateKeyTo: fixture.url("other.private"), publicKeyTo: fixture.url("other.public"))
        let (status, errors) = try await run(
            fixture,
            [
                package.path, "--out", out, "--release-key", fixture.url("other.private").path,
                "--package-key", packageKey,
            ])
        #expect(status != 0 && errors.contains("existing index"), "\(errors)")
        #expect(try Data(contentsOf: fixture.indexFile()) == before, "a refused publish leaves the index as it was")
    }
}
