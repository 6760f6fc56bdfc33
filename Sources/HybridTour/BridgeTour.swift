import Foundation
import HybridCore
import HybridGTK

/// Runs the bridge tour page in a real WebKitGTK view and collects one line per capability.
public enum BridgeTour {
    public struct Report: Sendable {
        public let lines: [TourLine]
        /// The page said it was done (rather than the tour timing out).
        public let finished: Bool
        public let screenshot: Data?
        public var passed: Bool { finished && !lines.isEmpty && lines.allSatisfy(\.passed) }
    }

    static let earlyCallQueuedTitle = "HybridKit bridge tour: early call queued"

    public enum TourError: Error, CustomStringConvertible {
        case pagesMissing
        public var description: String { "the demo pages are missing from HybridTour's bundle; rebuild the package" }
    }

    /// Loads `app://demo/bridge/index.html` (with a cross-origin frame from a loopback server), waits for
    /// the page to report every check, and optionally takes a screenshot of the result.
    @GTKActor
    public static func run(
        screenshot: Bool = false, timeout: Duration = .seconds(60),
        onLine: @escaping @Sendable (TourLine) -> Void = { _ in }
    ) async throws -> Report {
        try GTKRuntime.shared.start()
        guard let pages = TourPages.directory, let entry = URL(string: "app://demo/bridge/index.html") else {
            throw TourError.pagesMissing
        }
        let server = try await LoopbackServer.start(serving: pages)
        defer { server.stop() }

        let recorder = TourRecorder(onLine: onLine)
        let view = GTKWebView()
        defer { view.close() }
        // The native side starts "not ready" (as a host still registering modules would be): the page's
        // first calls must wait in its queue until markReady().
        var configuration = BridgeConfiguration()
        configuration.startsReady = false
        let page = try HybridPage(
            engine: view, modules: TourModules.make(crossOrigin: server.origin, recorder: recorder),
            configuration: configuration)
        defer { page.close() }
        try view.setSchemeHandler(DirectorySchemeHandler(root: pages), forScheme: "app")
        try view.load(EngineRequest(url: entry))
        // Say ready only once the page has queued its early call (it says so in its title), so the tour
        // shows the queue at work however fast or slow the machine is.
        let deadline = ContinuousClock.now + timeout
        while view.title != earlyCallQueuedTitle, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        await page.bridge.markReady()
        let finished = await recorder.waitUntilFinished(timeout: timeout)
        var image: Data?
        if screenshot {
            // Let the last rows paint before the snapshot.
            try await Task.sleep(for: .milliseconds(150))
            image = try await view.snapshotPNG()
        }
        return Report(lines: recorder.lines, finished: finished, screenshot: image)
    }
}
