import Foundation
import HybridTestSupport
import Testing

@testable import HybridCookies

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the `cookie-writer` helper, SIGKILLs it while it rewrites the jar, then checks the file on
/// disk is one complete state: all ten cookies carry the same generation number.
@Suite("Crash safety", .serialized)
struct CrashSafetyTests {
    static func writerURL() -> URL? {
        if let override = ProcessInfo.processInfo.environment["COOKIE_WRITER_PATH"] {
            return URL(fileURLWithPath: override)
        }
        return builtExecutable(named: "cookie-writer")
    }

    @Test(arguments: [5, 40, 120])
    func killedWriterLeavesACompleteJar(delayMilliseconds: Int) throws {
        let writer = try #require(
            Self.writerURL(), "cookie-writer executable not found next to the test binary")
        let directory = try makeCookieTestDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")

        let process = Process()
        process.executableURL = writer
        process.arguments = [file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Wait until a few states were written, so there is an "old" state to fall back to.
        let ready = output.fileHandleForReading.availableData
        #expect(String(decoding: ready, as: UTF8.self).contains("ready"))
        usleep(useconds_t(delayMilliseconds * 1000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let cookies = try FileCookieJarStore(fileURL: file).load()
        #expect(cookies.count == 10)
        let generations = Set(
            cookies.map { $0.value.split(separator: "-").first.map(String.init) ?? "" })
        #expect(generations.count == 1, "torn state: \(generations)")
        // load() also removed the temporary file the kill may have left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["cookies.json"])
    }
}
