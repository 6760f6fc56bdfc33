#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import ArgumentParser
import Foundation
import HybridTools

/// `hybrid bench firstscreen` (registered in the `hybrid` CLI's bench command).
public struct FirstScreenBenchCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "firstscreen",
        abstract: "First screen of a package page with data from a 150 ms server: with and without prefetch.",
        discussion: """
            Timed from the host's open call to the page's mark once the API's data is in the DOM; sides (cold and
            pooled views, each without and with first-screen prefetch, and the page without its API request) are
            alternated in blocks. Targets: cold with prefetch ≤ 0.7× cold without; pooled with prefetch ≤ 0.5× cold
            without; with prefetch ≤ the slower of (view start + the page's own work) and the API round trip + 30 ms.
            Network-page sides load the HTML by the engine or natively; with --tap-gap, four more open a network page
            that long after the user's tap (cold and pooled, with and without prefetch(for:) at the tap), timed from
            the tap. Fails unless the server saw exactly one HTML request per network-page open.
            """)

    @Flag(name: .long, help: "Print one JSON object per figure instead of a table.") var json = false
    @OptionGroup var global: GlobalOptions
    @Option(help: "Timed opens per side.") var rounds = 10
    @Option(help: "Milliseconds the server waits before each API answer.") var delay = 150
    @Option(help: "Milliseconds between the tap and the open for the tap sides; 0 leaves them out.") var tapGap = 150

    public init() {}

    public func validate() throws {
        guard rounds > 0, delay >= 0, tapGap >= 0 else {
            throw ValidationError("rounds must be positive, delay and tap-gap not negative")
        }
    }

    public func run() async throws {
        global.bootstrapLogging()
        var options = FirstScreenBenchmark.Options()
        options.rounds = rounds
        options.serverDelay = .milliseconds(delay)
        options.tapGap = .milliseconds(tapGap)
        if global.verbose {
            options.progress = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        let figures = try await FirstScreenBenchmark.run(options)
        print(json ? BenchReport.json(figures) : BenchReport.table(figures))
    }
}
#endif
