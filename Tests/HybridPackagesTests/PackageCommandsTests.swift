import Foundation
import HybridPackages
import HybridTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `hybrid pack`, `verify`, `diff`, `serve` and `bench`, run as the built executable the way a user runs them:
/// exit status, what they print (reasons on standard error) and the files they write.
@Suite(.timeLimit(.minutes(5))) struct PackageCommandsTests {
    struct Run {
        var output: String
        var errors: String
        var status: Int32
    }

    static func executable() throws -> URL {
        try #require(builtExecutable(named: "hybrid"), "the hybrid executable was not built next to the tests")
    }

    /// Runs the built `hybrid` off Swift's cooperative pool (see ChildProcess).
    func hybrid(_ arguments: [String]) async throws -> Run {
        let run = try await ChildProcess.run(try Self.executable(), arguments: arguments)
        return Run(
            output: String(decoding: run.standardOutput, as: UTF8.self),
            errors: String(decoding: run.standardError, as: UTF8.self), status: run.exitStatus ?? -1)
    }

    /// A scratch folder with a key pair made by `hybrid keygen` and two versions of a small site.
    final class Workspace {
        let root: URL
        var keys: String { root.appendingPathComponent("keys/shop").path }
        var privateKey: String { keys + ".private" }
        var publicKey: String { keys + ".public" }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("keys"), withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        func path(_ name: String) -> String { root.appendingPathComponent(name).path }

        func site(_ version: String, extra: [String: String] = [:]) throws -> String {
            let directory = root.appendingPathComponent("site-\(version)")
            var files = [
                "index.html": "<html>shop \(version)</html>", "app.js": "console.log('\(version)')",
                "assets/unchanged.css": "body{}",
            ]
            files.merge(extra) { $1 }
            for (path, text) in files {
                let file = directory.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file)
            }
            return directory.path
        }

        func packArguments(_ version: String, site: String, key: String? = nil, out: String? = nil) -> [String] {
            [
                "pack", site, "--id", "com.example.shop", "--version", version, "--serves",
                "https://shop.example.com/app/", "--entry", "index.html", "--key", key ?? privateKey, "--out",
                out ?? path("shop-\(version).zip"),
            ]
        }
    }

    func workspaceWithKeys() async throws -> Workspace {
        let workspace = try Workspace()
        let keygen = try await hybrid(["keygen", "--out", workspace.keys])
        #expect(keygen.status == 0, "\(keygen.errors)")
        return workspace
    }

    // MARK: pack and verify

    @Test func packWritesASignedPackageThatVerifies() async throws {
        let workspace = try await workspaceWithKeys()
        let pack = try await hybrid(workspace.packArguments("1.0.0", site: try workspace.site("1.0.0")))
        #expect(pack.status == 0, "\(pack.errors)")
        #expect(pack.output.contains("packed com.example.shop 1.0.0: 3 files"), "\(pack.output)")
        let zip = workspace.path("shop-1.0.0.zip")
        #expect(pack.output.contains("wrote \(zip):"))
        // The printed SHA-256 is the file's.
        let inspection = try PackageInspector().inspect(packageAt: URL(fileURLWithPath: zip))
        #expect(pack.output.contains("sha256 \(inspection.sha256)"))

        let verify = try await hybrid(["verify", zip, "--key", workspace.publicKey])
        #expect(verify.status == 0, "\(verify.errors)")
        #expect(verify.output.contains("id:      com.example.shop"))
        #expect(verify.output.contains("version: 1.0.0"))
        #expect(verify.output.contains("files:   3"))
        #expect(verify.output.hasSuffix("OK\n"))
        // What the app does with it: the library verifies it with the public key keygen wrote.
        let trusted = try PackageVerificationKey.load(from: URL(fileURLWithPath: workspace.publicKey))
        #expect(
            try PackageVerifier(trustedKey: trusted).verify(packageAt: URL(fileURLWithPath: zip)).id
                == "com.example.shop")
    }

    @Test func packRefusesBadKeysAndMissingFolders() async throws {
        let workspace = try await workspaceWithKeys()
        let site = try workspace.site("1.0.0")

        let missingKey = try await hybrid(
            workspace.packArguments("1.0.0", site: site, key: workspace.path("nope.private")))
        #expect(missingKey.status == 1)
        #expect(
            missingKey.errors.contains("Cannot read key file '\(workspace.path("nope.private"))'"),
            "\(missingKey.errors)")

        // The public half where the private key belongs.
        let publicKey = try await hybrid(workspace.packArguments("1.0.0", site: site, key: workspace.publicKey))
        #expect(publicKey.status == 1)
        #expect(publicKey.errors.contains("holds a public key but a private key is needed"), "\(publicKey.errors)")

        let garbage = workspace.path("garbage.private")
        try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: garbage))
        let malformed = try await hybrid(workspace.packArguments("1.0.0", site: site, key: garbage))
        #expect(malformed.status == 1)
        #expect(malformed.errors.contains("is not a HybridKit key file"), "\(malformed.errors)")

        let noFolder = try await hybrid(workspace.packArguments("1.0.0", site: workspace.path("missing")))
        #expect(noFolder.status == 1)
        #expect(noFolder.errors.contains("is not a directory"), "\(noFolder.errors)")

        for run in [missingKey, publicKey, malformed, noFolder] { #expect(run.output.isEmpty, "\(run.output)") }
        let written = try FileManager.default.contentsOfDirectory(atPath: workspace.root.path)
        #expect(!written.contains { $0.hasSuffix(".zip") }, "\(written)")

        // Arguments ArgumentParser refuses: usage error (64), with the reason.
        var noServes = workspace.packArguments("1.0.0", site: site)
        noServes.removeSubrange(6...7)
        let usage = try await hybrid(noServes)
        #expect(usage.status == 64)
        #expect(usage.errors.contains("--serves"), "\(usage.errors)")
    }

    @Test func verifyFailsOnATamperedPackageAndAForeignKey() async throws {
        let workspace = try await workspaceWithKeys()
        #expect(try await hybrid(workspace.packArguments("1.0.0", site: try workspace.site("1.0.0"))).status == 0)
        let zip = URL(fileURLWithPath: workspace.path("shop-1.0.0.zip"))

        // Same size, other bytes: only the manifest's SHA-256 can tell.
        let entries = try Fixture.entries(of: zip)
        let tampered: [(path: String, data: Data)] = entries.map { entry in
            entry.path == "content/app.js" ? (path: entry.path, data: Data("console.log('PWN!!')".utf8)) : entry
        }
        #expect(tampered.contains { $0.path == "content/app.js" })
        let tamperedZip = workspace.path("tampered.zip")
        try Fixture.writeZip(tampered, to: URL(fileURLWithPath: tamperedZip))
        let verify = try await hybrid(["verify", tamperedZip, "--key", workspace.publicKey])
        #expect(verify.status == 1)
        #expect(verify.errors.contains("'app.js' does not match its SHA-256 in the manifest"), "\(verify.errors)")
        #expect(!verify.output.contains("OK"))

        let otherKeys = workspace.path("keys/other")
        #expect(try await hybrid(["keygen", "--out", otherKeys]).status == 0)
        let foreign = try await hybrid(["verify", zip.path, "--key", otherKeys + ".public"])
        #expect(foreign.status == 1)
        #expect(foreign.errors.contains("but this app trusts key"), "\(foreign.errors)")

        let missing = try await hybrid(["verify", workspace.path("nothing.zip"), "--key", workspace.publicKey])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("does not exist"), "\(missing.errors)")
    }

    // MARK: diff

    @Test func diffCarriesRenamedBundlesAsDeltasUnlessTurnedOff() async throws {
        let workspace = try await workspaceWithKeys()
        let old = try workspace.site(
            "1.0.0",
            extra: ["assets/index-A1b2C3d4.js": DeltaDiffTests.bundle(seed: 1, imports: "A1b2C3d4", edit: "v1")])
        let new = try workspace.site(
            "1.1.0",
            extra: ["assets/index-Q2w3E4r5.js": DeltaDiffTests.bundle(seed: 1, imports: "Q2w3E4r5", edit: "v2")])
        #expect(try await hybrid(workspace.packArguments("1.0.0", site: old)).status == 0)
        #expect(try await hybrid(workspace.packArguments("1.1.0", site: new)).status == 0)
        let arguments = [
            "diff", workspace.path("shop-1.0.0.zip"), workspace.path("shop-1.1.0.zip"), "--key", workspace.privateKey,
        ]
        let withDeltas = try await hybrid(arguments + ["--out", workspace.path("deltas.zip")])
        #expect(withDeltas.status == 0, "\(withDeltas.errors)")
        #expect(
            withDeltas.output.contains("1 changed files as binary deltas (manifest format 2)"), "\(withDeltas.output)")
        let plain = try await hybrid(arguments + ["--out", workspace.path("plain.zip"), "--no-deltas"])
        #expect(plain.status == 0, "\(plain.errors)")
        #expect(!plain.output.contains("binary deltas"), "\(plain.output)")
        for name in ["deltas.zip", "plain.zip"] {
            let verify = try await hybrid(["verify", workspace.path(name), "--key", workspace.publicKey])
            #expect(verify.status == 0, "\(name): \(verify.errors)")
        }
        let sizes = try ["deltas.zip", "plain.zip"].map { name in
            try #require(try FileManager.default.attributesOfItem(atPath: workspace.path(name))[.size] as? Int)
        }
        #expect(sizes[0] < sizes[1], "delta diff \(sizes[0]) B, plain diff \(sizes[1]) B")
    }

    @Test func diffWritesASignedDiffThatVerifies() async throws {
        let workspace = try await workspaceWithKeys()
        #expect(try await hybrid(workspace.packArguments("1.0.0", site: try workspace.site("1.0.0"))).status == 0)
        let newSite = try workspace.site("1.1.0", extra: ["new.txt": "added"])
        try FileManager.default.removeItem(atPath: newSite + "/assets/unchanged.css")
        try Data("body{color:red}".utf8).write(to: URL(fileURLWithPath: newSite + "/assets/changed.css"))
        #expect(try await hybrid(workspace.packArguments("1.1.0", site: newSite)).status == 0)

        let out = workspace.path("shop-1.0.0-1.1.0.diff.zip")
        let diff = try await hybrid([
            "diff", workspace.path("shop-1.0.0.zip"), workspace.path("shop-1.1.0.zip"), "--key", workspace.privateKey,
            "--out", out,
        ])
        #expect(diff.status == 0, "\(diff.errors)")
        // index.html and app.js changed, new.txt and changed.css added; unchanged.css removed.
        #expect(diff.output.contains("diff com.example.shop 1.0.0 → 1.1.0: 4 changed, 1 removed"), "\(diff.output)")
        #expect(FileManager.default.fileExists(atPath: out))

        let verify = try await hybrid(["verify", out, "--key", workspace.publicKey])
        #expect(verify.status == 0, "\(verify.errors)")
        #expect(verify.output.contains("diff:    from 1.0.0, 4 changed, 1 removed"), "\(verify.output)")
        #expect(verify.output.hasSuffix("OK\n"))

        // Backwards: refused, nothing written.
        let backwards = workspace.path("backwards.zip")
        let refused = try await hybrid([
            "diff", workspace.path("shop-1.1.0.zip"), workspace.path("shop-1.0.0.zip"), "--key", workspace.privateKey,
            "--out", backwards,
        ])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("must be later than the old version"), "\(refused.errors)")
        #expect(!FileManager.default.fileExists(atPath: backwards))
    }

    // MARK: serve

    /// A port that was free a moment ago on 127.0.0.1.
    static func freePort() throws -> Int {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let fd = socket(AF_INET, stream, 0)
        try #require(fd >= 0, "no socket")
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        try #require(bound, "could not find a free port")
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func get(_ url: URL) async throws -> (status: Int, body: Data) {
        let (data, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test func serveAnswersHTTPUntilTerminated() async throws {
        let workspace = try await workspaceWithKeys()
        let directory = workspace.path("served")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let zip = directory + "/shop-1.0.0.zip"
        #expect(
            try await hybrid(workspace.packArguments("1.0.0", site: try workspace.site("1.0.0"), out: zip)).status == 0)

        let port = try Self.freePort()
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = ["serve", directory, "--port", "\(port)", "--host", "127.0.0.1"]
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let printed = Mutex(Data())
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            printed.withLock { $0.append(chunk) }
        }
        try process.run()
        defer {
            stdout.fileHandleForReading.readabilityHandler = nil
            if process.isRunning { process.terminate() }
        }
        let base = "http://127.0.0.1:\(port)/"
        let deadline = ContinuousClock.now + .seconds(60)
        while !String(decoding: printed.withLock { $0 }, as: UTF8.self).contains("serving") {
            try #require(process.isRunning, "hybrid serve exited early")
            try #require(ContinuousClock.now < deadline, "hybrid serve printed nothing in 60 s")
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(String(decoding: printed.withLock { $0 }, as: UTF8.self).contains("serving \(directory) at \(base)"))

        let latest = try await get(try #require(URL(string: base + "v1/packages/com.example.shop/latest")))
        #expect(latest.status == 200)
        let release = try #require(try JSONSerialization.jsonObject(with: latest.body) as? [String: Any])
        #expect(release["id"] as? String == "com.example.shop")
        #expect(release["version"] as? String == "1.0.0")
        let full = try #require(release["full"] as? [String: Any])
        let inspection = try PackageInspector().inspect(packageAt: URL(fileURLWithPath: zip))
        #expect(full["sha256"] as? String == inspection.sha256)
        let fileURL = try #require(
            (full["url"] as? String).flatMap { URL(string: $0, relativeTo: URL(string: base)) })
        let file = try await get(fileURL)
        #expect(file.status == 200)
        #expect(file.body == (try Data(contentsOf: URL(fileURLWithPath: zip))))
        #expect(try await get(try #require(URL(string: base + "v1/packages/com.example.none/latest"))).status == 404)

        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal || process.terminationStatus == 0)
        // The port is released.
        await #expect(throws: (any Error).self) { _ = try await get(try #require(URL(string: base + "v1/files/x"))) }
    }

    @Test func serveRefusesAMissingFolderAndABadPort() async throws {
        let workspace = try Workspace()
        let missing = try await hybrid(["serve", workspace.path("missing"), "--port", "0"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("is not a directory"), "\(missing.errors)")
        let badPort = try await hybrid(["serve", workspace.root.path, "--port", "70000"])
        #expect(badPort.status == 64)
        #expect(badPort.errors.contains("--port must be 0…65535"), "\(badPort.errors)")
    }

    // MARK: bench

    @Test func benchCookiesPrintsATableWithItsBaseline() async throws {
        let bench = try await hybrid([
            "bench", "cookies", "--domains", "20", "--cookies-per-domain", "2", "--seconds", "0.1",
        ])
        #expect(bench.status == 0, "\(bench.errors)")
        let lines = bench.output.split(separator: "\n").map(String.init)
        let header = try #require(lines.first)
        for column in ["scenario", "figure", "value", "baseline (same run)", "ratio", "target"] {
            #expect(header.contains(column), "\(header)")
        }
        #expect(lines.count >= 3, "\(bench.output)")
        #expect(
            lines.dropFirst(2).allSatisfy { $0.contains("HTTPCookieStorage") && $0.contains("×") }, "\(bench.output)")

        let json = try await hybrid([
            "bench", "cookies", "--domains", "5", "--cookies-per-domain", "1", "--seconds", "0.05", "--json",
        ])
        #expect(json.status == 0, "\(json.errors)")
        let first = try #require(json.output.split(separator: "\n").first)
        let figure = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect((figure["baseline"] as? NSNumber).map { $0.doubleValue > 0 } == true, "\(figure)")
        #expect((figure["baselineName"] as? String)?.contains("HTTPCookieStorage") == true, "\(figure)")

        let refused = try await hybrid(["bench", "cookies", "--seconds", "0"])
        #expect(refused.status == 64)
        #expect(refused.errors.contains("counts and seconds must be positive"), "\(refused.errors)")
    }
}
