#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK
import HybridTestSupport
import Testing

@testable import HybridDemo

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

    /// Runs the built `hybrid demo` to its end, off Swift's cooperative pool (it takes a while, and a test that
    /// holds one of the pool's threads starves every other test of the process).
    func demo(_ arguments: [String]) async throws -> DemoRun {
        let hybrid = try #require(
            builtExecutable(named: "hybrid"), "the hybrid executable was not built next to the tests")
        let run = try await ChildProcess.run(hybrid, arguments: ["demo"] + arguments, limit: .seconds(300))
        return DemoRun(
            status: run.exitStatus ?? -1, output: String(decoding: run.standardOutput, as: UTF8.self),
            errors: String(decoding: run.standardError, as: UTF8.self))
    }

    @Test func theDemoFailsAndSaysSoWhenTheTourStopsHalfway() async throws {
        let run = try await demo(["--tour-page", Self.stopsHalfway, "--timeout", "4"])
        #expect(run.status == 1, "\(run.output)\n\(run.errors)")
        #expect(run.output.contains("PASS  first check"))
        #expect(run.output.contains("FAIL  the tour page did not finish within 4 s"), "\(run.output)")
        #expect(run.output.contains(" passed, 1 failed"), "\(run.output)")
        #expect(run.alarmingLogLines.isEmpty, "\(run.alarmingLogLines)")
    }

    @Test func theDemoFailsAndSaysSoWhenTheTourCountsFailures() async throws {
        let run = try await demo(["--tour-page", Self.reportsFailure])
        #expect(run.status == 1, "\(run.output)\n\(run.errors)")
        #expect(run.output.contains("PASS  first check"))
        #expect(run.output.contains("FAIL  the tour page reported 2 failed checks"), "\(run.output)")
        #expect(run.alarmingLogLines.isEmpty, "\(run.alarmingLogLines)")
    }
}
#endif
