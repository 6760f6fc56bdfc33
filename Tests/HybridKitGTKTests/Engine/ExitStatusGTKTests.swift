#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK
import HybridTestSupport
import Testing

/// An app that uses the headless runtime exits with its own status and output, every time, and the Xvfb the
/// runtime started ends with it. (The runtime used to stop Xvfb from an `atexit` handler while GTK's thread
/// still watched the display; GDK's X error handler then called `_exit(1)`: about 60% of runs exited 1 and lost
/// their buffered output.)
@Suite(.timeLimit(.minutes(5))) struct ExitStatusGTKTests {
    @Test func thirtyRunsExitZeroWithTheirOutput() async throws {
        let child = try #require(
            builtExecutable(named: "gtk-exit-child"), "the gtk-exit-child executable was not built next to the tests")
        // Without DISPLAY, so each run starts (and must end) an Xvfb of its own.
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        var failures: [String] = []
        var displays: Set<String> = []
        for run in 1...30 {
            let result = try await ChildProcess.run(child, arguments: [], environment: environment)
            let output = String(decoding: result.standardOutput, as: UTF8.self)
            let errors = String(decoding: result.standardError, as: UTF8.self)
            if result.exitStatus != 0 || !output.hasPrefix("answer 42 on display :") {
                failures.append(
                    "run \(run): status \(result.exitStatus.map(String.init) ?? "signal \(result.signal ?? -1)"), "
                        + "output \(output.debugDescription), errors \(errors.suffix(300).debugDescription)")
            }
            if let display = output.split(separator: " ").last { displays.insert(String(display).trimmed) }
        }
        #expect(failures.isEmpty, "\(failures.count) of 30 runs: \(failures.joined(separator: "\n"))")
        for display in displays { try await expectXvfbEnds(display) }
    }
}

extension ExitStatusGTKTests {
    /// An app that shuts the runtime down before it exits: the runtime refuses to start again, the app's status
    /// and output are still its own, and its Xvfb ends with it.
    @Test func anExplicitShutDownKeepsTheExitStatusAndEndsXvfb() async throws {
        let child = try #require(
            builtExecutable(named: "gtk-exit-child"), "the gtk-exit-child executable was not built next to the tests")
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = nil
        for run in 1...5 {
            let result = try await ChildProcess.run(child, arguments: ["--shut-down"], environment: environment)
            let output = String(decoding: result.standardOutput, as: UTF8.self)
            #expect(
                result.exitStatus == 0, "run \(run): \(output) \(String(decoding: result.standardError, as: UTF8.self))"
            )
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "run \(run): \(output.debugDescription)")
            guard lines.count == 2, let display = lines[0].split(separator: " ").last else { continue }
            #expect(lines[0].hasPrefix("answer 42 on display :"))
            #expect(lines[1] == "after shutDown: \(GTKRuntimeError.shutDown.description)", "run \(run)")
            try await expectXvfbEnds(String(display))
        }
    }
}

extension ExitStatusGTKTests {
    /// Engine-isolated work that ran before GTK existed and GTK's own work run on one thread: GTK took over the
    /// engine thread rather than starting one of its own.
    @Test func gtkTakesOverTheEngineThread() async throws {
        let child = try #require(
            builtExecutable(named: "gtk-exit-child"), "the gtk-exit-child executable was not built next to the tests")
        let result = try await ChildProcess.run(child, arguments: ["--engine-thread"])
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(result.exitStatus == 0, "\(output) \(String(decoding: result.standardError, as: UTF8.self))")
        #expect(output.split(separator: "\n").first == "one engine thread", "\(output.debugDescription)")
    }
}

/// Xvfb removes its socket when it ends; `-terminate` ends it once the app's connection is gone.
private func expectXvfbEnds(_ display: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let socket = "/tmp/.X11-unix/X" + display.dropFirst()
    var gone = false
    for _ in 0..<100 where !gone {
        gone = !FileManager.default.fileExists(atPath: socket)
        if !gone { try await Task.sleep(for: .milliseconds(50)) }
    }
    #expect(
        gone, "the Xvfb of display \(display) outlived its app (\(socket) still exists)", sourceLocation: sourceLocation
    )
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
#endif
