#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridKitTesting
import HybridTestServers

/// Runs the bridge tour page in a real WebKitGTK view and collects one line per capability.
public enum BridgeTour {
    public struct Report: Sendable {
        public let lines: [TourLine]
        /// What the page said when it was done; nil when it did not say so in time.
        public let end: TourEnd?
        public let screenshot: Data?

        public init(lines: [TourLine], end: TourEnd?, screenshot: Data?) {
            self.lines = lines
            self.end = end
            self.screenshot = screenshot
        }

        /// The page said it was done (rather than the tour timing out).
        public var finished: Bool { end != nil }

        /// What is wrong with the tour as a whole, beside its failed lines: it did not finish, stopped early,
        /// or counted failures of its own.
        public var problem: String? {
            guard let end else { return "the tour page did not finish" }
            if let error = end.error { return "the tour page stopped early: \(error)" }
            if end.failures < 0 { return "the tour page stopped early" }
            if end.failures > 0 {
                return "the tour page reported \(end.failures) failed check\(end.failures == 1 ? "" : "s")"
            }
            return nil
        }

        public var passed: Bool { problem == nil && !lines.isEmpty && lines.allSatisfy(\.passed) }
    }

    /// The tour page, under ``TourPages/directory``.
    public static let defaultPage = "bridge/index.html"

    static let earlyCallQueuedTitle = "HybridKit bridge tour: early call queued"

    public enum TourError: Error, CustomStringConvertible {
        case pagesMissing
        case pageMissing(String)
        public var description: String {
            switch self {
            case .pagesMissing: "the demo pages are missing from HybridDemo's bundle; rebuild the package"
            case .pageMissing(let page): "no tour page '\(page)' among the demo pages"
            }
        }
    }

    /// Loads `app://demo/bridge/index.html` (with a cross-origin frame from a loopback server), waits for
    /// the page to report every check, and optionally takes a screenshot of the result.
    ///
    /// `page` names another page under the demo pages to run instead (tests run pages that stop halfway or
    /// report failures).
    @GTKActor
    public static func run(
        page tourPage: String = defaultPage, screenshot: Bool = false, timeout: Duration = .seconds(60),
        onLine: @escaping @Sendable (TourLine) -> Void = { _ in }
    ) async throws -> Report {
        try GTKRuntime.shared.start(.headless)
        guard let pages = TourPages.directory else { throw TourError.pagesMissing }
        let components = tourPage.split(separator: "/", omittingEmptySubsequences: false)
        guard !tourPage.hasPrefix("/"), !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
            FileManager.default.fileExists(atPath: pages.appendingPathComponent(tourPage).path),
            let entry = URL(string: "app://demo/\(tourPage)")
        else { throw TourError.pageMissing(tourPage) }
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
        page.bridge.markReady()
        let end = await recorder.waitUntilFinished(timeout: timeout)
        var image: Data?
        if screenshot {
            // Let the last rows paint before the snapshot.
            try await Task.sleep(for: .milliseconds(150))
            image = try await view.snapshotPNG()
        }
        return Report(lines: recorder.lines, end: end, screenshot: image)
    }
}
#endif
