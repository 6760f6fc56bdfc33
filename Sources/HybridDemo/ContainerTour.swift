#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridKit
import HybridKitGTK
import HybridKitTesting
import HybridPackages
import HybridTestServers

/// The container's part of the demo, each capability driven from native code in real WebKitGTK: a page from a
/// signed offline package, a main-document redirect, recovery after the web process is killed, and a pooled
/// view that carries nothing of its previous page.
@GTKActor
enum ContainerTour {
    enum Failure: Error, CustomStringConvertible {
        case timedOut(String)
        case badURL(String)

        var description: String {
            switch self {
            case .timedOut(let what): "timed out waiting for \(what)"
            case .badURL(let text): "'\(text)' is not a URL"
            }
        }
    }

    /// Runs every section; a section that throws reports a failing line with the error instead of stopping the tour.
    static func run(record: (TourLine) -> Void) async {
        let sections: [(name: String, run: () async throws -> [TourLine])] = [
            ("offline package", packageAndRedirect),
            ("white-screen recovery", recovery),
            ("web-view pool", pool),
            ("request bodies", BodiesTour.run),
            ("cookies: one jar", CookieJarTour.run),
            ("signed remote config", RemoteConfigTour.run),
        ]
        for section in sections {
            do {
                for line in try await section.run() { record(line) }
            } catch {
                record(TourLine(name: section.name, passed: false, detail: "\(error)"))
            }
        }
    }

    // MARK: Offline package and redirect

    static func packageAndRedirect() async throws -> [TourLine] {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // The network origin has its own index.html: the page shows which one it got.
        let network = root.appendingPathComponent("network/app")
        try write("<!doctype html><title>from the network</title>", to: network.appendingPathComponent("index.html"))
        try write("<!doctype html><title>final</title>", to: network.appendingPathComponent("final.html"))
        let server = try await LoopbackServer.start(serving: root.appendingPathComponent("network")) { router in
            router.get("/app/start") { _, _ in Response(status: .found, headers: [.location: "/app/final.html"]) }
        }
        defer { server.stop() }
        let site = root.appendingPathComponent("site")
        try write(
            "<!doctype html><title>from the package</title><script src=\"app.js\"></script>",
            to: site.appendingPathComponent("index.html"))
        try write("window.scriptFromPackage = true;", to: site.appendingPathComponent("app.js"))
        let prefix = "\(server.origin)/app/"
        let store = try DemoPackage.install(site: site, id: "com.example.demo", serves: [prefix], in: root)

        let events = PageEvents()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(
                features: [PackageServing(store: store, route: try OfflineRoute(prefixes: [prefix]))]),
            factory: GTKEngineFactory())
        container.navigationDelegate = events
        defer { container.close() }
        let base = "hybrid://127.0.0.1:\(server.port)/app/"

        try container.load(try url(base + "index.html"))
        let served = await TourWait.until {
            guard container.engine.title == "from the package" else { return false }
            return (try? await container.engine.evaluateJavaScript("window.scriptFromPackage === true")) == "true"
        }
        let package = TourLine(
            name: "offline package", passed: served,
            detail: served
                ? "\(base)index.html and its script came from a package signed, verified and installed just now"
                : "the page shows '\(container.engine.title ?? "nothing")'")

        try container.load(try url(base + "start"))
        let moved = await TourWait.until {
            container.engine.url?.absoluteString == base + "final.html" && container.engine.title == "final"
        }
        let history = try await container.engine.evaluateJavaScript("history.length") ?? "?"
        let redirect = TourLine(
            name: "main-document redirect", passed: moved,
            detail: moved
                ? "start → 302 → the view shows \(base)final.html (history length \(history))"
                : "the view is at \(container.engine.url?.absoluteString ?? "nothing")")
        return [package, redirect]
    }

    // MARK: Recovery

    static func recovery() async throws -> [TourLine] {
        let events = PageEvents()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(
                messageHandlers: [HostMessageHandler(name: "recoveryProbe", handler: events)],
                features: [try tourPages()]),
            factory: GTKEngineFactory())
        container.recoveryDelegate = events
        container.navigationDelegate = events
        defer { container.close() }
        try container.load(try url("app://demo/test/recover.html"))
        guard await TourWait.until({ events.finishes > 0 }) else { throw Failure.timedOut("recover.html") }
        let before = try await container.engine.evaluateJavaScript("window.loadedAt")

        container.engine.terminateWebProcess()
        let told = await TourWait.until { !events.posts.isEmpty }
        let after = try await container.engine.evaluateJavaScript("window.loadedAt")
        let report = try events.pageReports().first
        let passed = told && after != before && report?["reason"] == "terminated"
        return [
            TourLine(
                name: "white-screen recovery", passed: passed,
                detail: passed
                    ? "web process killed; the page was loaded again and got 'recovered' (reason terminated)"
                    : "page told: \(told), reloaded: \(after != before)")
        ]
    }

    // MARK: Pool

    static func pool() async throws -> [TourLine] {
        let pages = try tourPages()
        let pool = WebViewPool(factory: GTKEngineFactory(), configuration: PoolConfiguration(warmCount: 1, capacity: 1))
        try await pool.prewarm()
        defer { Task { pool.drain() } }
        let blank = try url("app://demo/test/blank.html")

        let first = try HybridContainer(configuration: ContainerConfiguration(features: [pages]), pool: pool)
        let firstEvents = PageEvents()
        first.navigationDelegate = firstEvents
        try first.load(blank)
        guard await TourWait.until({ firstEvents.finishes > 0 }) else { throw Failure.timedOut("first page") }
        // What a fresh view shows after its first load: the pool's blank page may stand before it in history.
        // (A document's count lags behind the engine's list for a moment after load: read it once the bridge is up.)
        _ = await TourWait.until { (try? await first.engine.evaluateJavaScript("hybrid.isReady")) == "true" }
        let freshLength = try await first.engine.evaluateJavaScript("history.length") ?? "?"
        _ = try await first.engine.evaluateJavaScript(
            "sessionStorage.setItem('left', 'behind'); window.leftBehind = 1; history.pushState({}, '', '#2'); true")
        first.close()
        guard await TourWait.until({ pool.idleCount == 1 }) else { throw Failure.timedOut("the pool's reset") }

        let second = try HybridContainer(configuration: ContainerConfiguration(features: [pages]), pool: pool)
        let secondEvents = PageEvents()
        second.navigationDelegate = secondEvents
        defer { second.close() }
        try second.load(blank)
        guard await TourWait.until({ secondEvents.finishes > 0 }) else { throw Failure.timedOut("second page") }
        _ = await TourWait.until { (try? await second.engine.evaluateJavaScript("hybrid.isReady")) == "true" }
        let state = try await second.engine.evaluateJavaScript(
            "[sessionStorage.getItem('left'), typeof window.leftBehind, history.length]")
        let clean = second.isPooled && state == #"[null,"undefined",\#(freshLength)]"#
        return [
            TourLine(
                name: "web-view pool", passed: clean,
                detail: clean
                    ? "a warm view was handed out and showed no sessionStorage, globals or history of its previous page"
                    : "pooled: \(second.isPooled), state: \(state ?? "none"), a fresh view: \(freshLength)")
        ]
    }

    // MARK: Helpers

    private static func tourPages() throws -> DirectoryServing {
        guard let pages = DirectoryServing.tourPages else { throw BridgeTour.TourError.pagesMissing }
        return pages
    }

    private static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw Failure.badURL(text) }
        return url
    }

    private static func write(_ text: String, to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }
}
#endif
