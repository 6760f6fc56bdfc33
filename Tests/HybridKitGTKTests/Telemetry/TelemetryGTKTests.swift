#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridCookies
import HybridDemo
import HybridKit
import HybridKitGTK
import HybridTestSupport
import Testing

/// Every metric and log label the Telemetry article (Sources/HybridKit/HybridKit.docc/Telemetry.md) names is
/// reported by a real run: the demo tour (bridge, package, redirect, recovery, pool, request bodies by id and through
/// the native proxy, cookies, remote config) in WebKitGTK.
@Suite(.serialized) struct TelemetryGTKTests {
    /// The metrics the Telemetry article names, with what each must have counted in the tour.
    static let metrics: [(label: String, dimensions: [(String, String)])] = [
        (HybridMetrics.bridgeCalls, [("outcome", "ok")]),
        (HybridMetrics.packageRequests, [("outcome", "hit")]),
        (HybridMetrics.proxyRequests, [("outcome", "ok")]),
        (HybridMetrics.bodies, [("event", "stored")]),
        (HybridMetrics.bodies, [("event", "consumed")]),
        (HybridMetrics.recoveries, [("outcome", "recovered")]),
        (HybridMetrics.cookieSync, [("direction", "to_engine")]),
    ]
    static let timers = [HybridMetrics.bridgeCallDuration, HybridMetrics.bodyUploadDuration]
    /// The log labels the Telemetry article names (`hybrid.navigation` is checked with the navigation policy, which
    /// the tour does not exercise: NavigationPolicyGTKTests).
    static let logLabels = [
        "hybrid.bridge", "hybrid.packages", "hybrid.container", "hybrid.recovery", "hybrid.network", "hybrid.config",
        "hybrid.remote-config",
    ]

    @Test @GTKActor func theTourReportsEveryNamedMetricAndLogLabel() async throws {
        let metrics = MetricsSummary.installed()
        let logs = LogCapture.installed()
        let before = Self.metrics.map { metrics.total($0.label, where: $0.dimensions) }
        let timersBefore = Self.timers.map { metrics.count($0) }
        logs.reset()

        let report = try await DemoTour.run(screenshot: false, timeout: .seconds(120)) { _ in }
        #expect(report.passed, "\(report.lines.filter { !$0.passed }.map(\.name))")
        // The tour's cookies stay in the jar; the jar's sync with an engine store is the app's choice.
        try await Self.syncACookieWithTheEngine()

        for (index, metric) in Self.metrics.enumerated() {
            let counted = metrics.total(metric.label, where: metric.dimensions) - before[index]
            #expect(counted > 0, "\(metric.label) \(metric.dimensions) counted nothing")
        }
        for (index, timer) in Self.timers.enumerated() {
            #expect(metrics.count(timer) > timersBefore[index], "\(timer) timed nothing")
        }
        // The libraries without an engine speak too: the installer and the remote-config store.
        #expect(logs.logged("hybrid.packages", "package installed"))
        #expect(logs.logged("hybrid.config", "configuration taken"))
        let seen = logs.labels()
        for label in Self.logLabels {
            #expect(seen.contains(label), "nothing logged under \(label); seen: \(seen.sorted())")
        }
    }
}

extension TelemetryGTKTests {
    /// A jar synced with a real web view's cookie store and with a Foundation `HTTPCookieStorage`: a cookie
    /// given to the jar reaches both, and one the engine's store gets reaches the jar and the storage.
    @GTKActor
    static func syncACookieWithTheEngine() async throws {
        try GTKRuntime.shared.start(.headless)
        let view = GTKWebView()
        defer { view.close() }
        let jar = CookieJar()
        let sync = EngineCookieSync(jar: jar, store: view.cookieStore)
        await sync.start()
        defer { sync.stop() }
        let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "hybrid-\(UUID().uuidString)")
        let foundation = HTTPCookieStorageSync(jar: jar, storage: storage)
        foundation.start()
        defer { foundation.stop() }
        let site = try #require(URL(string: "https://telemetry.example/"))
        jar.setCookie("synced=1; Path=/", for: .http(site))
        await sync.settle()
        let names = try await view.cookieStore.cookies(for: site).map(\.name)
        #expect(names.contains("synced"))
        #expect(storage.cookies(for: site)?.contains { $0.name == "synced" } == true)

        // From the engine's store (as a page's Set-Cookie would arrive) to the jar and on to Foundation.
        try await view.cookieStore.setCookie(
            EngineCookie(name: "fromEngine", value: "2", domain: "telemetry.example", path: "/"))
        try await waitUntil(timeout: .seconds(10)) { jar.allCookies().contains { $0.name == "fromEngine" } }
        #expect(storage.cookies(for: site)?.contains { $0.name == "fromEngine" } == true)
    }
}
#endif
