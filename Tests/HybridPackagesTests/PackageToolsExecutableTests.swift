import Foundation
import HybridTestSupport
import Testing

/// `hybrid-tools`: the package tools as an executable that needs no web engine, for machines that sign, check
/// and serve releases without WebKitGTK.
@Suite(.timeLimit(.minutes(2))) struct PackageToolsExecutableTests {
    static func executable() throws -> URL {
        try #require(
            builtExecutable(named: "hybrid-tools"), "the hybrid-tools executable was not built next to the tests")
    }

    func run(_ command: URL, _ arguments: [String]) async throws -> (status: Int32?, output: String) {
        let result = try await ChildProcess.run(command, arguments: arguments)
        let text = String(decoding: result.standardOutput + result.standardError, as: UTF8.self)
        return (result.exitStatus, text)
    }

    @Test func linksNoWebEngine() async throws {
        let linked = try await run(URL(fileURLWithPath: "/usr/bin/ldd"), [try Self.executable().path])
        #expect(linked.status == 0, "ldd failed: \(linked.output)")
        #expect(linked.output.contains("libc.so"), "ldd listed no libraries: \(linked.output)")
        for engineLibrary in ["libwebkit2gtk", "libjavascriptcoregtk", "libgtk-3", "libsoup"] {
            #expect(!linked.output.contains(engineLibrary), "hybrid-tools links \(engineLibrary)")
        }
    }

    @Test func offersThePackageToolsAndNotTheEngineCommands() async throws {
        let help = try await run(try Self.executable(), ["--help"])
        #expect(help.status == 0)
        for command in ["keygen", "pack", "verify", "diff", "serve", "cookies", "config"] {
            #expect(help.output.contains("  \(command)"), "hybrid-tools --help does not list \(command)")
        }
        for command in ["demo", "bench"] {
            #expect(!help.output.contains("  \(command) "), "hybrid-tools --help lists \(command)")
        }
    }

    @Test func signsAndVerifiesAPackage() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-tools-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data("<html>shop</html>".utf8).write(to: site.appendingPathComponent("index.html"))
        let keys = root.appendingPathComponent("shop").path
        let package = root.appendingPathComponent("shop.zip").path
        let tools = try Self.executable()

        let keygen = try await run(tools, ["keygen", "--out", keys])
        #expect(keygen.status == 0, "\(keygen.output)")
        let pack = try await run(
            tools,
            [
                "pack", site.path, "--id", "com.example.shop", "--version", "1.0.0", "--serves",
                "https://shop.example.com/app/", "--entry", "index.html", "--key", keys + ".private", "--out", package,
            ])
        #expect(pack.status == 0, "\(pack.output)")
        let verify = try await run(tools, ["verify", package, "--key", keys + ".public"])
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("com.example.shop"))
    }
}
