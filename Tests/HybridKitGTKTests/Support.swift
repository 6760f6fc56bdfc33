#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridKit
import HybridKitGTK
import HybridKitTesting
import Testing

/// A real web view with a bridge, serving the tour pages under `app://demo/`.
@GTKActor
final class TestPage {
    let view: GTKWebView
    let page: HybridPage
    let loads = LoadEvents()

    init(modules: [BridgeModule], configuration: BridgeConfiguration = BridgeConfiguration()) throws {
        try GTKRuntime.shared.start(.headless)
        view = GTKWebView()
        page = try HybridPage(engine: view, modules: modules, configuration: configuration)
        page.delegate = loads
        guard let pages = TourPages.directory else { throw TestPageError.noPages }
        try view.setSchemeHandler(DirectorySchemeHandler(root: pages), forScheme: "app")
    }

    /// A page with a blank document loaded and the bridge ready.
    static func ready(modules: [BridgeModule]) async throws -> TestPage {
        let page = try TestPage(modules: modules)
        try await page.load("test/blank.html")
        try await page.waitFor("hybrid.isReady")
        return page
    }

    func load(_ path: String) async throws {
        let url = try #require(URL(string: "app://demo/\(path)"))
        let count = loads.finished
        try view.load(EngineRequest(url: url))
        try await waitUntil(timeout: .seconds(30)) { loads.finished > count }
    }

    /// Evaluates `script` and decodes its JSON result.
    func evaluate<T: Decodable>(_ script: String, as type: T.Type = T.self) async throws -> T {
        let json = try await view.evaluateJavaScript(script) ?? "null"
        return try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    /// Waits until `script` evaluates to true in the page.
    func waitFor(_ script: String, timeout: Duration = .seconds(30)) async throws {
        let view = self.view
        try await waitUntil(timeout: timeout) {
            (try? await view.evaluateJavaScript("!!(\(script))")) == "true"
        }
    }

    /// Serves `pages` (paths under the scheme's host directories, such as `main/index.html`, and their HTML) from a
    /// new temporary directory under `scheme`, and loads `url`.
    func serve(_ pages: [String: String], scheme: String, loading url: String) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("\(scheme)-pages-\(UUID().uuidString)")
        for (path, html) in pages {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(html.utf8).write(to: file)
        }
        try view.setSchemeHandler(HostDirectories(root: root), forScheme: scheme)
        try view.load(EngineRequest(url: try #require(URL(string: url))))
    }

    func close() {
        page.close()
        view.close()
    }
}

enum TestPageError: Error { case noPages, timedOut(String) }

final class LoadEvents: NavigationDelegate, @unchecked Sendable {
    // Touched on GTK's thread only.
    private(set) var finished = 0
    private(set) var committed = 0
    func didCommitNavigation(to url: URL?) { committed += 1 }
    func didFinishNavigation(to url: URL?) { finished += 1 }
}

@GTKActor
func waitUntil(timeout: Duration, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    if try await condition() { return }
    throw TestPageError.timedOut("condition not met within \(timeout)")
}
#elseif os(Linux) && !HYBRIDKIT_APPLE_LAYOUT
// Without this, a broken condition would compile every WebKitGTK test out here and the suite would pass empty.
#error("HybridKitGTKTests is built on Linux without WebKitGTK: Package.swift must give it HybridKitGTK on Linux")
#endif
