import Foundation
import HybridGTK
import HybridTestSupport
import Testing

@testable import HybridTour

/// A tour must be able to fail as a whole: a page that stops halfway, or that counts failures of its own, fails
/// the tour even when every line it recorded passed — in the recorder, in ``BridgeTour`` and in `hybrid demo`.
@Suite(.serialized) struct TourVerdictTests {
    static let stopsHalfway = "test/tour-stops-halfway.html"
    static let reportsFailure = "test/tour-reports-failure.html"

    @Test func theRecorderTellsATimeoutFromTheEnd() async {
        let recorder = TourRecorder(onLine: { _ in })
        #expect(await recorder.waitUntilFinished(timeout: .milliseconds(50)) == nil)

        let finished = TourRecorder(onLine: { _ in })
        Task { finished.finish(TourEnd(failures: 3)) }
        #expect(await finished.waitUntilFinished(timeout: .seconds(30)) == TourEnd(failures: 3))
    }

    @Test func aReportPassesOnlyWhenThePageFinishedWithoutFailures() {
        let line = TourLine(name: "check", passed: true, detail: "")
        #expect(BridgeTour.Report(lines: [line], end: TourEnd(failures: 0), screenshot: nil).passed)
        let unfinished = BridgeTour.Report(lines: [line], end: nil, screenshot: nil)
        #expect(!unfinished.passed)
        #expect(unfinished.problem == "the tour page did not finish")
        let counted = BridgeTour.Report(lines: [line], end: TourEnd(failures: 1), screenshot: nil)
        #expect(!counted.passed)
        #expect(counted.problem == "the tour page reported 1 failed check")
        let stopped = BridgeTour.Report(lines: [line], end: TourEnd(failures: -1, error: "boom"), screenshot: nil)
        #expect(!stopped.passed)
        #expect(stopped.problem == "the tour page stopped early: boom")
    }

    @Test func aPageThatStopsHalfwayDoesNotFinish() async throws {
        let report = try await BridgeTour.run(page: Self.stopsHalfway, timeout: .seconds(3))
        #expect(report.lines.map(\.name) == ["first check"])
        #expect(report.lines.allSatisfy { $0.passed })
        #expect(!report.finished)
        #expect(!report.passed)
    }

    @Test func failuresThePageCountsFailTheTour() async throws {
        let report = try await BridgeTour.run(page: Self.reportsFailure, timeout: .seconds(30))
        #expect(report.lines.allSatisfy { $0.passed })
        #expect(report.end == TourEnd(failures: 2))
        #expect(report.problem == "the tour page reported 2 failed checks")
        #expect(!report.passed)
    }

    @Test func onlyPagesUnderTheDemoPagesRun() async throws {
        for page in ["../Pages/bridge/index.html", "/etc/passwd", "bridge/missing.html", "bridge//index.html"] {
            await #expect(throws: BridgeTour.TourError.self) {
                try await BridgeTour.run(page: page, timeout: .seconds(1))
            }
        }
    }

    // MARK: `hybrid demo`, run as a user would

    struct DemoRun {
        let status: Int32
        let output: String
        let errors: String
        /// Log lines at warning level or above (swift-log's stream handler: `<time> <level> <label>: …`), on either
        /// stream: a normal run prints none.
        var alarmingLogLines: [Substring] {
            (output + "\n" + errors).split(separator: "\n").filter { line in
                let words = line.split(separator: " ", maxSplits: 3)
                return line.contains("CancellationError")
                    || (words.count >= 3 && ["warning", "error", "critical"].contains(String(words[1]))
                        && words[2].hasSuffix(":"))
            }
        }
    }

    func demo(_ arguments: [String]) throws -> DemoRun {
        let hybrid = try #require(
            builtExecutable(named: "hybrid"), "the hybrid executable was not built next to the tests")
        let process = Process()
        process.executableURL = hybrid
        process.arguments = ["demo"] + arguments
        // Files, not pipes: neither stream can fill up and stall the demo while the other is read.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("out")
        let errURL = folder.appendingPathComponent("err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        return DemoRun(
            status: process.terminationStatus,
            output: try String(contentsOf: outURL, encoding: .utf8),
            errors: try String(contentsOf: errURL, encoding: .utf8))
    }

    @Test func theDemoFailsAndSaysSoWhenTheTourStopsHalfway() throws {
        let run = try demo(["--tour-page", Self.stopsHalfway, "--timeout", "4"])
        #expect(run.status == 1, "\(run.output)\n\(run.errors)")
        #expect(run.output.contains("PASS  first check"))
        #expect(run.output.contains("FAIL  the tour page did not finish within 4 s"), "\(run.output)")
        #expect(run.output.contains(" passed, 1 failed"), "\(run.output)")
        #expect(run.alarmingLogLines.isEmpty, "\(run.alarmingLogLines)")
    }

    @Test func theDemoFailsAndSaysSoWhenTheTourCountsFailures() throws {
        let run = try demo(["--tour-page", Self.reportsFailure])
        #expect(run.status == 1, "\(run.output)\n\(run.errors)")
        #expect(run.output.contains("PASS  first check"))
        #expect(run.output.contains("FAIL  the tour page reported 2 failed checks"), "\(run.output)")
        #expect(run.alarmingLogLines.isEmpty, "\(run.alarmingLogLines)")
    }
}
