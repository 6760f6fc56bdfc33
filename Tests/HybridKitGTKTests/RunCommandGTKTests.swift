#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridTestServers
import HybridTestSupport
import Testing

/// `hybrid run`, as a person runs it: the built executable against a fixture app (a directory, a signed
/// package, a loopback URL), in real WebKitGTK, with and without a display.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RunCommandGTKTests {
    private func hybrid() throws -> URL {
        try #require(builtExecutable(named: "hybrid"), "the hybrid executable was not built next to the tests")
    }

    /// `hybrid run` on a fixture site (marker-1) in a window on a display of its own, for up to 120 s.
    private func runningInAWindow() throws -> RunningSite {
        let display = try TestDisplay()
        let site = try RunFixture.site(marker: "marker-1")
        do {
            let child = try LiveChild(
                try hybrid(), arguments: ["run", site.path, "--exit-after", "120"],
                environment: RunFixture.displayEnvironment(display.name))
            return RunningSite(display: display, site: site, child: child)
        } catch {
            try? FileManager.default.removeItem(at: site)
            throw error
        }
    }

    /// A `hybrid run` child with the display and site it uses; `stop()` ends the child and removes the site.
    private struct RunningSite {
        let display: TestDisplay
        let site: URL
        let child: LiveChild

        func stop() {
            child.stop()
            try? FileManager.default.removeItem(at: site)
        }
    }

    private func screenshot() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("run-shot-\(UUID().uuidString).png").path
    }

    /// The PNG exists and most of it is the fixture page's colour: the page was served, rendered and captured.
    private func expectFixtureRendered(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pixels = try #require(
            RunFixture.fillPixels(of: path), "\(path) is not a PNG", sourceLocation: sourceLocation)
        #expect(pixels.total > 100_000, "the screenshot is \(pixels.total) pixels", sourceLocation: sourceLocation)
        #expect(
            pixels.matching * 10 > pixels.total * 9,
            "only \(pixels.matching) of \(pixels.total) pixels show the page", sourceLocation: sourceLocation)
    }

    @Test func screenshotWithNoDisplayRendersTheDirectoryAndExitsZero() async throws {
        let site = try RunFixture.site()
        defer { try? FileManager.default.removeItem(at: site) }
        let png = screenshot()
        defer { try? FileManager.default.removeItem(atPath: png) }
        let result = try await ChildProcess.run(
            try hybrid(), arguments: ["run", site.path, "--screenshot", png], environment: RunFixture.withoutDisplay)
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(result.exitStatus == 0, "\(output)\n\(String(decoding: result.standardError, as: UTF8.self))")
        #expect(output.contains("UNSIGNED DEVELOPMENT PACKAGE"))
        // Read back from WebKit's settings of the view.
        #expect(output.contains("inspect the Web Inspector is on"))
        #expect(output.contains("screenshot \(png)"))
        try expectFixtureRendered(png)
    }

    @Test func screenshotUnderADisplay() async throws {
        let display = try TestDisplay()
        let site = try RunFixture.site()
        defer { try? FileManager.default.removeItem(at: site) }
        let png = screenshot()
        defer { try? FileManager.default.removeItem(atPath: png) }
        let result = try await ChildProcess.run(
            try hybrid(), arguments: ["run", site.path, "--screenshot", png],
            environment: RunFixture.displayEnvironment(display.name))
        #expect(
            result.exitStatus == 0,
            "\(String(decoding: result.standardOutput, as: UTF8.self))\(String(decoding: result.standardError, as: UTF8.self))"
        )
        try expectFixtureRendered(png)
    }

    /// The starter app's pages (Examples/Shop), as its developer opens them: a window on a display, the page
    /// rendered (its background fills the window), and a terminal line for its first call to the `cart` module,
    /// which `hybrid run`'s sample modules do not have.
    @Test func theShopExampleOpensInAWindow() async throws {
        let display = try TestDisplay()
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let web = repository.appendingPathComponent("Examples/Shop/Sources/Shop/web")
        #expect(FileManager.default.fileExists(atPath: web.appendingPathComponent("index.html").path))
        let png = screenshot()
        defer { try? FileManager.default.removeItem(atPath: png) }
        let result = try await ChildProcess.run(
            try hybrid(), arguments: ["run", web.path, "--screenshot", png],
            environment: RunFixture.displayEnvironment(display.name))
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(result.exitStatus == 0, "\(output)\(String(decoding: result.standardError, as: UTF8.self))")
        #expect(output.contains("cart.add"), "no line for the page's cart call: \(output)")
        // The shop's background, #fdf6ec.
        let pixels = try #require(RunFixture.fillPixels(of: png, fill: (0xfd, 0xf6, 0xec)), "\(png) is not a PNG")
        #expect(pixels.matching * 2 > pixels.total, "only \(pixels.matching) of \(pixels.total) pixels show the shop")
    }

    /// In a window: one line per bridge call (page-made names escaped) and per failed request; editing a file
    /// reloads the page with the new content.
    @Test func editingAFileReloadsThePage() async throws {
        let running = try runningInAWindow()
        defer { running.stop() }
        let (site, child) = (running.site, running.child)

        // The page's three calls, answered in order.
        let first = await child.waitForOutput(limit: .seconds(60)) {
            $0.contains("page    marker-1") && $0.contains("call    nope.x")
        }
        #expect(first, "the page's first log never came: \(child.output)\(child.errors)")
        try #require(first)
        let lines = child.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("call    app.log  hybrid://app.localhost  ok  ") && $0.hasSuffix(" ms") })
        #expect(lines.contains { $0.hasPrefix("call    nope.x  hybrid://app.localhost  unknown_module  ") })
        #expect(lines.contains(#"page    \u{1b}[2Jcleared?"#), "\(lines)")
        #expect(!child.output.contains("\u{1b}"), "a page put a raw escape character on the terminal")
        let failed = await child.waitForOutput(limit: .seconds(30)) {
            $0.contains("failed  hybrid://app.localhost/missing.js  ")
        }
        #expect(failed, "no line for the failed request: \(child.output)")

        try Data(RunFixture.page(marker: "marker-2").utf8).write(to: site.appendingPathComponent("index.html"))
        let reloaded = await child.waitForOutput(limit: .seconds(30)) { $0.contains("page    marker-2") }
        #expect(reloaded, "the edit did not reload the page: \(child.output)\(child.errors)")
        #expect(child.output.contains("changed reloading hybrid://app.localhost/index.html"))
        #expect(child.isRunning, "hybrid run ended: \(child.errors)")

        // Ctrl-C or SIGTERM closes it like its window: exit status 0.
        child.terminate()
        #expect(await child.waitForExit(limit: .seconds(20)) == 0, "\(child.errors)")
        #expect(child.output.hasSuffix("stopped\n"))
    }

    /// White-screen recovery is on: the web process killed (SIGKILL, so WebKit reports a crash), the page comes
    /// back by itself and says so.
    @Test func aKilledWebProcessIsRecovered() async throws {
        let running = try runningInAWindow()
        defer { running.stop() }
        let child = running.child
        let loaded = await child.waitForOutput(limit: .seconds(60)) { $0.contains("page    marker-1") }
        try #require(loaded, "the page never loaded: \(child.output)\(child.errors)")
        let webProcesses = child.children(named: "WebKitWebProces")
        try #require(!webProcesses.isEmpty, "no WebKitWebProcess started by hybrid run")
        for process in webProcesses { kill(process, SIGKILL) }

        let recovered = await child.waitForOutput(limit: .seconds(30)) {
            $0.contains("recover crashed, attempt 1")
                && $0.components(separatedBy: "page    marker-1").count == 3
        }
        #expect(recovered, "no recovery: \(child.output)\(child.errors)")
        #expect(child.output.contains("ended   the web process ended (crashed)"))
        #expect(child.isRunning, "hybrid run ended: \(child.errors)")
    }

    @Test func exitAfterClosesTheWindowWithStatusZero() async throws {
        let display = try TestDisplay()
        let site = try RunFixture.site()
        defer { try? FileManager.default.removeItem(at: site) }
        let result = try await ChildProcess.run(
            try hybrid(), arguments: ["run", site.path, "--exit-after", "1"],
            environment: RunFixture.displayEnvironment(display.name))
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(result.exitStatus == 0, "\(output)\(String(decoding: result.standardError, as: UTF8.self))")
        #expect(output.contains("loaded  hybrid://app.localhost/index.html"))
        #expect(output.hasSuffix("stopped\n"))
    }

    /// `--origin`: what the directory lacks comes from another server, under the route's origin; an error
    /// status gets its line.
    @Test func missesGoToTheDevelopmentOrigin() async throws {
        let site = try RunFixture.site()
        let server = FileManager.default.temporaryDirectory.appendingPathComponent("run-origin-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: site)
            try? FileManager.default.removeItem(at: server)
        }
        try FileManager.default.createDirectory(at: server, withIntermediateDirectories: true)
        try Data("hybrid.call('app', 'log', { message: 'from ' + location.origin + ' via the dev server' });".utf8)
            .write(to: server.appendingPathComponent("api.js"))
        try Data(
            RunFixture.page(marker: "marker-1").replacingOccurrences(
                of: "<script src=\"missing.js\"></script>",
                with: "<script src=\"api.js\"></script><script src=\"missing.js\"></script>"
            ).utf8
        ).write(to: site.appendingPathComponent("index.html"))
        let loopback = try await LoopbackServer.start(serving: server)
        defer { loopback.stop() }
        let png = screenshot()
        defer { try? FileManager.default.removeItem(atPath: png) }
        let result = try await ChildProcess.run(
            try hybrid(), arguments: ["run", site.path, "--origin", loopback.origin, "--screenshot", png],
            environment: RunFixture.withoutDisplay)
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(result.exitStatus == 0, "\(output)\(String(decoding: result.standardError, as: UTF8.self))")
        #expect(output.contains("origin  misses of https://app.localhost go to \(loopback.origin)"))
        #expect(output.contains("page    from hybrid://app.localhost via the dev server"), "\(output)")
        #expect(output.contains("failed  https://app.localhost/missing.js  GET answered HTTP 404"), "\(output)")
        try expectFixtureRendered(png)
    }

    @Test func signedPackageWithItsKey() async throws {
        let site = try RunFixture.site()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("run-zip-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: site)
            try? FileManager.default.removeItem(at: root)
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let keys = PackageKeyPair.generate()
        let key = root.appendingPathComponent("app.public")
        try keys.verificationKey.save(to: key)
        let zip = root.appendingPathComponent("app.zip")
        try PackagePacker().pack(
            directory: site,
            options: PackOptions(
                id: "com.example.run", version: SemanticVersion(major: 1, minor: 2, patch: 0),
                serves: ["https://shop.example.com/app/"]),
            keyPair: keys, to: zip)
        let png = screenshot()
        defer { try? FileManager.default.removeItem(atPath: png) }
        let result = try await ChildProcess.run(
            try hybrid(), arguments: ["run", zip.path, "--public-key", key.path, "--screenshot", png],
            environment: RunFixture.withoutDisplay)
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(result.exitStatus == 0, "\(output)\(String(decoding: result.standardError, as: UTF8.self))")
        #expect(
            output.contains("package com.example.run 1.2.0, signed with key \(keys.verificationKey.keyID), verified"))
        #expect(!output.contains("UNSIGNED"))
        #expect(output.contains("call    app.log  hybrid://shop.example.com  ok"))
        try expectFixtureRendered(png)

        // Signed with another key: refused, with what to do.
        let other = root.appendingPathComponent("other.public")
        try PackageKeyPair.generate().verificationKey.save(to: other)
        let refused = try await ChildProcess.run(
            try hybrid(), arguments: ["run", zip.path, "--public-key", other.path, "--screenshot", png],
            environment: RunFixture.withoutDisplay)
        #expect(refused.exitStatus == 1)
        #expect(String(decoding: refused.standardError, as: UTF8.self).contains("signed with key"))
    }

    @Test func aURLIsLoadedAsItIs() async throws {
        let site = try RunFixture.site()
        defer { try? FileManager.default.removeItem(at: site) }
        let server = try await LoopbackServer.start(serving: site)
        defer { server.stop() }
        let png = screenshot()
        defer { try? FileManager.default.removeItem(atPath: png) }
        let result = try await ChildProcess.run(
            try hybrid(), arguments: ["run", "\(server.origin)/index.html", "--screenshot", png],
            environment: RunFixture.withoutDisplay)
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(result.exitStatus == 0, "\(output)\(String(decoding: result.standardError, as: UTF8.self))")
        #expect(output.contains("call    app.log  \(server.origin)  ok"))
        try expectFixtureRendered(png)
    }

    struct BadRun: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: @Sendable (URL) -> [String]
        let says: String
        var testDescription: String { name }
    }

    static let badRuns: [BadRun] = [
        BadRun(
            name: "no such directory", arguments: { ["run", $0.appendingPathComponent("nope").path] },

            says: "does not exist"),
        BadRun(
            name: "a directory without index.html", arguments: { ["run", $0.path, "--screenshot", "x.png"] },
            says: "has no index.html; add one, or name the entry page with --entry"),
        BadRun(
            name: "a file that is no app", arguments: { ["run", $0.appendingPathComponent("notes.txt").path] },
            says: "is neither a directory nor a .zip package"),
        BadRun(
            name: "a zip without a key", arguments: { ["run", $0.appendingPathComponent("bad.zip").path] },
            says: "--public-key"),
        BadRun(
            name: "a zip that is not a package",
            arguments: {
                [
                    "run", $0.appendingPathComponent("bad.zip").path, "--public-key",
                    $0.appendingPathComponent("app.public").path, "--screenshot", "x.png",
                ]
            },
            says: "was refused: The package is not a"),
        BadRun(
            name: "a key file that is not a key",
            arguments: {
                [
                    "run", $0.appendingPathComponent("bad.zip").path, "--public-key",
                    $0.appendingPathComponent("notes.txt").path,
                ]
            },
            says: "--public-key"),
        BadRun(
            name: "another scheme", arguments: { _ in ["run", "ftp://example.com/"] },

            says: "is not an http(s) URL"),
        BadRun(
            name: "a bad --serves", arguments: { _ in ["run", ".", "--serves", "shop"] },

            says: "--serves"),
        BadRun(
            name: "no display and no screenshot", arguments: { _ in ["run", "https://example.com/"] },
            says: "--screenshot out.png"),
        BadRun(
            name: "a screenshot in a missing directory",
            arguments: { ["run", "https://example.com/", "--screenshot", $0.appendingPathComponent("no/x.png").path] },
            says: "does not exist or is not writable"),
        BadRun(
            name: "an unreachable URL", arguments: { _ in ["run", "http://127.0.0.1:PORT/", "--screenshot", "x.png"] },
            says: "could not load http://127.0.0.1:PORT/: Could not connect"),
    ]

    @Test(arguments: badRuns) func badArgumentsSayWhatToDo(_ run: BadRun) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("not a zip".utf8).write(to: directory.appendingPathComponent("bad.zip"))
        try Data("notes".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        try PackageKeyPair.generate().verificationKey.save(to: directory.appendingPathComponent("app.public"))
        // A port nothing listens on: a server's, just stopped (WebKit refuses well-known ports such as 9 without
        // a word, so an arbitrary closed port would not do).
        let closed = try await LoopbackServer.start(serving: directory)
        let port = String(closed.port)
        await closed.shutdown()
        var arguments = run.arguments(directory).map { $0.replacingOccurrences(of: "PORT", with: port) }
        if let shot = arguments.firstIndex(of: "x.png") {
            arguments[shot] = directory.appendingPathComponent("x.png").path
        }
        let says = run.says.replacingOccurrences(of: "PORT", with: port)
        let result = try await ChildProcess.run(
            try hybrid(), arguments: arguments, environment: RunFixture.withoutDisplay, limit: .seconds(60))
        let errors = String(decoding: result.standardError, as: UTF8.self)
        #expect(result.exitStatus == 1, "status \(String(describing: result.exitStatus)): \(errors)")
        #expect(errors.contains(says), "\(errors)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.png").path))
    }
}
#endif
