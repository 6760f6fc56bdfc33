#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Logging

/// An Xvfb server started for this process when no display is available.
///
/// Started with `-terminate` so it exits when the last client (this process) disconnects: at exit, however the
/// process ends, and never while GTK's thread still uses it.
final class VirtualDisplay: Sendable {
    let name: String
    private let process: Process

    private init(name: String, process: Process) {
        self.name = name
        self.process = process
    }

    /// Starts Xvfb and returns once it accepts connections (it reports its display number when ready).
    static func start(logger: Logger) throws(GTKRuntimeError) -> VirtualDisplay {
        guard let xvfb = ["/usr/bin/Xvfb", "/usr/local/bin/Xvfb"].first(where: FileManager.default.isExecutableFile)
        else { throw .noDisplay("DISPLAY is not set and Xvfb is not installed (apt-get install xvfb xauth)") }
        let process = Process()
        let ready = Pipe()
        process.executableURL = URL(fileURLWithPath: xvfb)
        process.arguments = ["-displayfd", "1", "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-terminate"]
        process.standardOutput = ready
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw .noDisplay("could not start \(xvfb): \(error)") }
        // Xvfb writes the display number followed by a newline once it is ready.
        var digits = Data()
        while let byte = try? ready.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A {
            digits.append(first)
        }
        guard let number = Int(String(decoding: digits, as: UTF8.self)) else {
            process.terminate()
            throw .noDisplay("Xvfb did not report a display number (exit status \(process.terminationStatus))")
        }
        logger.debug("started Xvfb", metadata: ["display": ":\(number)"])
        return VirtualDisplay(name: ":\(number)", process: process)
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}
#endif
