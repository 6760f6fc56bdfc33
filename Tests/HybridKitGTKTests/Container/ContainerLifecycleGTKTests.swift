#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridBench
import HybridKit
import HybridKitGTK
import HybridPackages
import Testing

/// Containers leave nothing behind: 200 create/destroy cycles in real WebKitGTK.
extension ContainerGTKTests {
    @Suite struct Lifecycle {
        final class Weak<T: AnyObject>: @unchecked Sendable {
            weak var value: T?
            init(_ value: T) { self.value = value }
        }

        static let echo = BridgeModule("echo", access: .origins("app://demo")) { module in
            module.method("say") { (text: String, _) -> String in text }
        }

        @Test @GTKActor func twoHundredCyclesLeaveNoObjectsAndFlatMemory() async throws {
            let serving = try tourServing()
            // A package store too, so every container makes (and must shut down) its own URLSession.
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let site = root.appendingPathComponent("site")
            try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
            try Data("<!doctype html><title>pkg</title><p>package page".utf8).write(
                to: site.appendingPathComponent("index.html"))
            let store = try installTestPackage(
                site: site, id: "test.lifecycle", serves: ["https://pkg.test/"], in: root)
            let packages = PackageServing(
                store: store, route: try OfflineRoute(scheme: "hybrid", prefixes: ["https://pkg.test/"]))

            let containersBefore = LiveObjects.containers
            let handlesBefore = LiveObjects.engineHandles
            var containers: [Weak<HybridContainer>] = []
            var bridges: [Weak<BridgeEngine>] = []
            var pages: [Weak<HybridPage>] = []
            var recoveries: [Weak<PageRecovery>] = []
            // Views by weak reference: `GTKWebView.liveCount` also counts the views of suites running alongside.
            var views: [Weak<GTKWebView>] = []
            var residentBefore = 0

            func cycle(_ index: Int) async throws {
                let events = PagePosts()
                let container = try HybridContainer(
                    configuration: ContainerConfiguration(
                        modules: [Self.echo],
                        messageHandlers: [HostMessageHandler(name: "recoveryProbe", handler: events)],
                        features: [packages, serving]),
                    factory: GTKEngineFactory(configuration: GTKWebView.Configuration(width: 320, height: 240)))
                container.navigationDelegate = events
                containers.append(Weak(container))
                bridges.append(Weak(container.bridge))
                pages.append(Weak(container.page))
                if let recovery = container.recovery { recoveries.append(Weak(recovery)) }
                if let view = container.engine as? GTKWebView { views.append(Weak(view)) }
                // Every cycle goes as far as a bridge call from a loaded page; every tenth loads from the package.
                if index.isMultiple(of: 10) {
                    let before = events.finishes
                    try container.load(try #require(URL(string: "hybrid://pkg.test/index.html")))
                    try await waitUntil(timeout: .seconds(30)) { events.finishes > before }
                    // The engine's title may lag behind load-finished; the document's does not.
                    #expect(try await container.evaluate("document.title", as: String.self) == "pkg")
                } else {
                    try await container.loadTourPage("test/blank.html", events: events)
                    _ = try await container.engine.evaluateJavaScript(
                        "hybrid.call('echo', 'say', 'hi').then((a) => webkit.messageHandlers.recoveryProbe.postMessage(a)); 1"
                    )
                    try await waitUntil(timeout: .seconds(30)) { events.posts == ["hi"] }
                }
                container.close()
            }

            // Warm-up: the first cycles load libraries and fill caches; memory is measured after them.
            for index in 0..<10 { try await cycle(index) }
            try await waitUntil(timeout: .seconds(30)) { views.allSatisfy { $0.value == nil } }
            residentBefore = ProcessMemory.ownResident
            for index in 10..<110 { try await cycle(index) }
            let residentMiddle = ProcessMemory.ownResident
            for index in 110..<210 { try await cycle(index) }

            try await waitUntil(timeout: .seconds(30)) { views.allSatisfy { $0.value == nil } }
            #expect(views.count == 210)
            try await waitUntil(timeout: .seconds(30)) { containers.allSatisfy { $0.value == nil } }
            let residentAfter = ProcessMemory.ownResident
            #expect(LiveObjects.containers == containersBefore)
            #expect(LiveObjects.engineHandles == handlesBefore)
            #expect(
                bridges.allSatisfy { $0.value == nil }, "bridges alive: \(bridges.filter { $0.value != nil }.count)")
            #expect(pages.allSatisfy { $0.value == nil }, "pages alive: \(pages.filter { $0.value != nil }.count)")
            #expect(recoveries.allSatisfy { $0.value == nil }, "recoveries alive")
            let growth = residentAfter - residentBefore
            print(
                "container lifecycle: 200 cycles, resident \(residentBefore / 1024) KiB → \(residentMiddle / 1024) KiB "
                    + "after 100 → \(residentAfter / 1024) KiB "
                    + "(\(growth >= 0 ? "+" : "")\(growth / 1024) KiB)")
            // Measured alone: +4 to +13 MiB over 200 cycles, about evenly over both halves. A bare GTKWebView cycle
            // without any container (create, load, close) grows ~30 KiB per cycle on its own, so most of this is below
            // the container (WebKitGTK, GTK, the allocator). A leak of 150 KiB per cycle (a view with its widgets, a
            // URLSession, a bridge with its runtime script) would be 30 MiB on top.
            #expect(growth < 24 * 1024 * 1024, "resident memory grew by \(growth / 1024) KiB over 200 cycles")
        }
    }
}
#endif
