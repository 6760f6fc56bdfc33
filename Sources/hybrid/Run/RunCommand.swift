#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import ArgumentParser
import Foundation
import HybridKitGTK
import HybridTools

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Open an app (a directory, a signed package, or a URL) in a window, as a shipped app would run it.",
        discussion: """
            A directory is served as an UNSIGNED DEVELOPMENT PACKAGE (marked as such, never accepted by an \
            installer) under --serves, and the page reloads when a file in it changes. A .zip must be signed with \
            the key given by --public-key. A URL is loaded as it is. The page gets the bridge (module `app`: info, \
            echo, add, log), package serving with misses from the network, request-body hooks, cookies and \
            document.cookie, the navigation policy and white-screen recovery; the Web Inspector is on (right-click, \
            Inspect Element). One line is printed per bridge call and per failed request.
            With --screenshot the page is rendered once, saved as PNG, and the command exits; without a display it \
            starts its own Xvfb.
            """)

    @Argument(help: "A directory holding index.html, a signed package .zip, or an http(s) URL.")
    var target: String

    @Option(help: "The URL prefix a directory is served as (what its release's manifest will say).")
    var serves = "https://app.localhost/"

    @Option(help: "The page a directory opens with.")
    var entry = "index.html"

    @Option(name: .customLong("public-key"), help: "The public key a .zip must be signed with (`hybrid keygen`).")
    var publicKey: String?

    @Option(help: "Send package misses to this origin instead of the --serves one (a dev or staging server).")
    var origin: String?

    @Option(help: "Render the page once, save it as PNG here, and exit.", completion: .file(extensions: ["png"]))
    var screenshot: String?

    @Option(help: "Seconds the first page has to load.")
    var timeout = 30

    @Option(help: "Seconds the page gets after loading before the screenshot.")
    var settle = 0.5

    @Option(name: .customLong("exit-after"), help: "Close after this many seconds (exit status 0).")
    var exitAfter: Double?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be at least 1 second") }
        guard settle >= 0, settle <= 60 else { throw ValidationError("--settle must be between 0 and 60 seconds") }
        if let exitAfter, !(exitAfter > 0) { throw ValidationError("--exit-after must be more than 0 seconds") }
    }

    func run() async throws {
        global.bootstrapLogging()
        let options = RunOptions(
            serves: serves, entry: entry, publicKey: publicKey, origin: origin, screenshot: screenshot,
            timeout: timeout, settle: settle, exitAfter: exitAfter)
        do {
            try await Self.run(target, options: options)
        } catch let error as RunError {
            FileHandle.standardError.write(Data("hybrid run: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    @GTKActor
    static func run(_ text: String, options: RunOptions) async throws {
        if let path = options.screenshot {
            // Said now rather than after the page has loaded.
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            guard FileManager.default.isWritableFile(atPath: directory) else {
                throw RunError.screenshotFailed("\(path): \(directory) does not exist or is not writable")
            }
        }
        let source = try RunSource.prepare(try RunTarget.parse(text), options: options)
        let session: RunSession
        do {
            try startRuntime(screenshot: options.screenshot != nil)
            session = try RunSession(source)
        } catch {
            source.discard()
            throw error
        }
        defer { session.close() }
        try await session.loadFirstPage(timeout: options.timeout)
        if let path = options.screenshot {
            try await Task.sleep(for: .milliseconds(Int(options.settle * 1000)))
            let image: Data
            do {
                image = try await session.screenshot()
                try image.write(to: URL(fileURLWithPath: path))
            } catch { throw RunError.screenshotFailed("\(path): \(error)") }
            Terminal.line("screenshot \(path) (\(image.count) bytes)")
            return
        }
        Terminal.line("running close the window or press Ctrl-C to stop")
        await session.runUntilClosed(exitAfter: options.exitAfter, options: options)
        session.close()
        Terminal.line("stopped")
    }

    /// A window needs a display; only a screenshot may start its own (Xvfb, software rendering, and WebKit's
    /// sandbox off inside a container: ``GTKRuntime/Options/headless``). With a display nothing is changed.
    private static func startRuntime(screenshot: Bool) throws(RunError) {
        let hasDisplay = getenv("DISPLAY") != nil
        guard hasDisplay || screenshot else { throw .noDisplay }
        do throws(GTKRuntimeError) {
            try GTKRuntime.shared.start(hasDisplay ? GTKRuntime.Options() : .headless)
        } catch {
            throw .runtimeFailed(error.description)
        }
    }
}
#endif
