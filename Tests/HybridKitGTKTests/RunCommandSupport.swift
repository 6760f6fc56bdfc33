#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// What the `hybrid run` tests share: a fixture app, a PNG's pixels, an Xvfb display of the test's own, and a
/// child whose output can be read while it runs.
enum RunFixture {
    /// The colour the fixture page fills itself with (and nothing else on screen is).
    static let fill: (r: UInt8, g: UInt8, b: UInt8) = (0x12, 0x9a, 0x4e)

    /// A page that fills the window, logs `marker` through the bridge (and a message holding an escape
    /// sequence), calls a module no app has, and asks for a script nothing serves.
    static func page(marker: String) -> String {
        """
        <!doctype html>
        <html><head><title>run fixture</title>
        <style>html, body { margin: 0; height: 100%; background: rgb(18, 154, 78); }</style>
        <script src="missing.js"></script>
        </head><body>
        <script>
          hybrid.call('app', 'log', { message: '\(marker)' });
          hybrid.call('app', 'log', { message: '\\u001b[2Jcleared?' });
          hybrid.call('nope', 'x').catch(() => {});
        </script>
        </body></html>
        """
    }

    /// A directory with the fixture page as its index.html.
    static func site(marker: String = "marker-1") throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(page(marker: marker).utf8).write(to: directory.appendingPathComponent("index.html"))
        return directory
    }

    /// How many pixels of the PNG at `path` are `fill` (the fixture's colour by default), and how many there are.
    static func fillPixels(
        of path: String, fill: (r: UInt8, g: UInt8, b: UInt8) = RunFixture.fill
    ) -> (matching: Int, total: Int)? {
        let surface = cairo_image_surface_create_from_png(path)
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface)
        else { return nil }
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        var matching = 0
        for y in 0..<height {
            for x in 0..<width {
                // Cairo's ARGB32 and RGB24 are native-endian 32-bit words: B, G, R, A in memory here.
                let pixel = data + y * stride + x * 4
                if abs(Int(pixel[2]) - Int(fill.r)) <= 2, abs(Int(pixel[1]) - Int(fill.g)) <= 2,
                    abs(Int(pixel[0]) - Int(fill.b)) <= 2
                {
                    matching += 1
                }
            }
        }
        return (matching, width * height)
    }

    /// What WebKit needs to render on an Xvfb display inside a container (no GPU, no user namespaces): what
    /// `GTKRuntime.Options.headless` would set, set here because `hybrid run` with a display changes nothing.
    static func displayEnvironment(_ display: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        environment["GDK_BACKEND"] = "x11"
        environment["WEBKIT_DISABLE_DMABUF_RENDERER"] = "1"
        environment["WEBKIT_DISABLE_COMPOSITING_MODE"] = "1"
        environment["LIBGL_ALWAYS_SOFTWARE"] = "1"
        environment["WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS"] = "1"
        return environment
    }

    static var withoutDisplay: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        return environment
    }
}

/// An Xvfb server for one test, on a display number no other server holds.
final class TestDisplay {
    let name: String
    private let child: LiveChild

    init() throws {
        let started = try Self.start()
        name = started.0
        child = started.1
    }

    private static func start() throws -> (String, LiveChild) {
        guard let xvfb = ["/usr/bin/Xvfb", "/usr/local/bin/Xvfb"].first(where: FileManager.default.isExecutableFile)
        else { throw RunTestError.missing("Xvfb is not installed (apt-get install xvfb xauth)") }
        for number in (200..<260).shuffled() {
            let socket = "/tmp/.X11-unix/X\(number)"
            guard !FileManager.default.fileExists(atPath: socket),
                !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
            else { continue }
            let child = try LiveChild(
                URL(fileURLWithPath: xvfb),
                arguments: [":\(number)", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"])
            for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) && child.isRunning {
                usleep(25_000)
            }
            if FileManager.default.fileExists(atPath: socket) { return (":\(number)", child) }
            child.stop()
        }
        throw RunTestError.missing("no Xvfb display could be started on :200–:259")
    }

    deinit { child.stop() }
}

enum RunTestError: Error, CustomStringConvertible {
    case missing(String)

    var description: String {
        switch self {
        case .missing(let what): what
        }
    }
}

/// A child process whose standard output and error go to files, so a test can read them while it runs.
final class LiveChild: @unchecked Sendable {
    let pid: pid_t
    let outputFile: URL
    let errorFile: URL
    private var status: Int32?

    init(_ executable: URL, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment)
        throws
    {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("run-child-\(UUID().uuidString)")
        let outputFile = base.appendingPathExtension("out")
        let errorFile = base.appendingPathExtension("err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Default signals: `stop()` asks with SIGTERM first, which a child spawned from a test's worker thread would
        // otherwise inherit blocked (Xvfb then had to be SIGKILLed, leaving its socket and lock behind).
        pid = try ChildProcess.spawn(
            executable, arguments: arguments, environment: environment, actions: &actions, defaultSignals: true)
        self.outputFile = outputFile
        self.errorFile = errorFile
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: outputFile)
        try? FileManager.default.removeItem(at: errorFile)
    }

    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    var isRunning: Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid {
            status = raw
            return false
        }
        return true
    }

    /// Waits (polling) until `condition` holds on the output, the child ends, or `limit` passes.
    func waitForOutput(limit: Duration, _ condition: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition(output) { return true }
            if !isRunning { return condition(output) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(output)
    }

    /// Waits for the child to exit by itself; its exit status, or nil when it was killed or outlived `limit`.
    func waitForExit(limit: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + limit
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        guard let status, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }

    func terminate() { if isRunning { kill(pid, SIGTERM) } }

    /// The processes this child started whose command name (`/proc/<pid>/comm`, at most 15 bytes) is `name`.
    func children(named name: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let candidate = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let comm = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8),
                comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                // `pid (comm) state ppid …`: the parent is the second field after the closing parenthesis.
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? candidate : nil
        }
    }

    /// SIGTERM, then SIGKILL if it is still there a second later.
    func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        for _ in 0..<40 where isRunning { usleep(25_000) }
        if isRunning {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            _ = waitpid(pid, &raw, 0)
            status = raw
        }
    }
}
#endif
