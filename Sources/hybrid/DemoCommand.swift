#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import ArgumentParser
import Foundation
import HybridDemo
import HybridKit
import HybridTools

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Tour HybridKit in WebKitGTK, one pass/fail line per capability.",
        discussion: """
            The bridge page: calls, typed errors, events, native→page handlers, WebViewJavascriptBridge
            compatibility, same- and cross-origin iframes (the cross-origin frame comes from a loopback HTTP server).
            Then the container, driven from native code: a page from a package signed and installed on the spot,
            a main-document redirect, recovery after the web process is killed, a pooled view reused clean.
            Exits with status 1 when any capability fails, or when the tour page does not finish or counts
            failures of its own.
            """)

    @Option(name: .long, help: "Save a PNG of what the page shows at the end.", completion: .file(extensions: ["png"]))
    var screenshot: String?

    @Option(name: .long, help: "Seconds to wait for the page to finish.")
    var timeout: Int = 60

    @Option(
        name: .customLong("tour-page"),
        help: ArgumentHelp("Run another page under the demo pages instead of the bridge tour.", visibility: .hidden))
    var tourPage: String = BridgeTour.defaultPage

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        global.bootstrapLogging()
        // With --verbose the tour ends with the counters and timers the library reported on its way.
        let metrics = global.verbose ? MetricsSummary.installed() : nil
        let report = try await DemoTour.run(
            page: tourPage, screenshot: screenshot != nil, timeout: .seconds(timeout)
        ) { line in
            print("\(line.passed ? "PASS" : "FAIL")  \(line.name) — \(line.detail)")
        }
        if let screenshot, let image = report.screenshot {
            try image.write(to: URL(fileURLWithPath: screenshot))
            print("screenshot: \(screenshot) (\(image.count) bytes)")
        }
        let failedLines = report.lines.filter { !$0.passed }.count
        if let problem = report.problem {
            print("FAIL  \(report.finished ? problem : "\(problem) within \(timeout) s")")
        }
        if let metrics {
            print("telemetry (swift-metrics):")
            for line in metrics.lines() { print("  \(line)") }
        }
        // The tour page's own problem (it did not finish, or counted failures) is one more failure.
        let failed = failedLines + (report.problem == nil ? 0 : 1)
        print("\(report.lines.count - failedLines) passed, \(failed) failed")
        if !report.passed { throw ExitCode(1) }
    }
}
#endif
