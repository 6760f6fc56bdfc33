#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridKit
import HybridKitGTK
import Testing

/// White-screen recovery in real WebKitGTK: the web process is really terminated, the page really comes back.
extension ContainerGTKTests {
    @Suite struct Recovery {
        /// Short enough that 50 kills in a row stay quick, long enough that a page dying during its own recovery
        /// counts as a failed attempt.
        static let policy = RecoveryPolicy(
            maxConsecutiveAttempts: 3, initialBackoff: .milliseconds(200), maxBackoff: .seconds(1),
            stableAfter: .milliseconds(300))

        @GTKActor static func makeContainer(_ events: PagePosts, visible: Bool = true) throws -> HybridContainer {
            let container = try HybridContainer(
                configuration: ContainerConfiguration(
                    messageHandlers: [HostMessageHandler(name: "recoveryProbe", handler: events)],
                    features: [try tourServing()], recovery: policy, isVisible: visible),
                factory: GTKEngineFactory())
            container.recoveryDelegate = events
            container.navigationDelegate = events
            return container
        }

        @Test @GTKActor func visiblePageComesBackAfterEachOf50Terminations() async throws {
            let events = PagePosts()
            let container = try Self.makeContainer(events)
            defer { container.close() }
            try await container.loadTourPage("test/recover.html", events: events)
            let recovery = try #require(container.recovery)
            for kill in 1...50 {
                let stamp: Double = try await container.evaluate("window.loadedAt")
                container.engine.terminateWebProcess()
                try await waitUntil(timeout: .seconds(30)) { events.posts.count == kill }
                let fresh: Double = try await container.evaluate("window.loadedAt")
                #expect(fresh != stamp, "kill \(kill): the page was not loaded again")
                #expect(try await container.evaluate("document.title", as: String.self) == "recover")
                // Past `stableAfter`: the next death starts a new series, as a page that stays up should.
                try await Task.sleep(for: .milliseconds(350))
            }
            let reports = try events.pageReports()
            #expect(reports.count == 50)
            #expect(
                reports.allSatisfy { $0["reason"] == "terminated" && $0["attempt"] == 1 && $0["deferred"] == false })
            #expect(await recovery.reloads == 50, "one reload per kill, no loop")
            #expect(events.reports.count == 50)
            #expect(events.gaveUp.isEmpty)
        }

        /// A page loaded from an HTML string (no URL to reload) comes back from the same HTML after its web
        /// process dies, with its base URL, as the White-screen recovery article
        /// (Sources/HybridKit/HybridKit.docc/WhiteScreenRecovery.md) promises.
        @Test @GTKActor func anHTMLStringPageComesBackFromItsHTML() async throws {
            let events = PagePosts()
            let container = try Self.makeContainer(events)
            defer { container.close() }
            let html = """
                <!doctype html><title>from a string</title><p>inline</p>
                <script>
                  window.loadedAt = performance.timeOrigin;
                  hybrid.on('recovered', (report) => {
                    window.webkit.messageHandlers.recoveryProbe.postMessage(JSON.stringify(report));
                  });
                </script>
                """
            let base = try #require(URL(string: "app://demo/test/"))
            container.loadHTML(html, baseURL: base)
            try await waitUntil(timeout: .seconds(30)) {
                (try? await container.evaluate("document.title", as: String.self)) == "from a string"
            }
            let stamp: Double = try await container.evaluate("window.loadedAt")
            container.engine.terminateWebProcess()
            try await waitUntil(timeout: .seconds(30)) { events.posts.count == 1 }
            let fresh: Double = try await container.evaluate("window.loadedAt")
            #expect(fresh != stamp, "the page was not loaded again")
            #expect(try await container.evaluate("document.title", as: String.self) == "from a string")
            #expect(try await container.evaluate("document.baseURI", as: String.self) == base.absoluteString)
            #expect(try events.pageReports().first?["reason"] == "terminated")
        }

        @Test @GTKActor func hiddenPageWaitsUntilShownEachOf50Times() async throws {
            let events = PagePosts()
            let container = try Self.makeContainer(events)
            defer { container.close() }
            try await container.loadTourPage("test/recover.html", events: events)
            let recovery = try #require(container.recovery)
            let view = try #require(container.engine as? GTKWebView)
            for kill in 1...50 {
                view.isVisible = false
                container.setVisible(false)
                container.engine.terminateWebProcess()
                try await waitUntil(timeout: .seconds(10)) {
                    if case .waitingUntilVisible = recovery.phase { return true }
                    return false
                }
                try await Task.sleep(for: .milliseconds(50))
                #expect(await recovery.reloads == kill - 1, "kill \(kill): a hidden page must not reload")
                view.isVisible = true
                container.setVisible(true)
                try await waitUntil(timeout: .seconds(30)) { events.posts.count == kill }
                try await Task.sleep(for: .milliseconds(350))
            }
            let reports = try events.pageReports()
            #expect(reports.count == 50)
            #expect(reports.allSatisfy { $0["deferred"] == true && $0["attempt"] == 1 })
            #expect(await recovery.reloads == 50)
        }

        @Test @GTKActor func pageThatAlwaysDiesStopsAtTheMaximum() async throws {
            let events = PagePosts()
            let container = try Self.makeContainer(events)
            defer { container.close() }
            try await container.loadTourPage("test/recover.html", events: events)
            let recovery = try #require(container.recovery)
            // From now on every document dies as soon as it commits: no recovery can finish.
            events.onCommit = { [weak container] in
                Task { @GTKActor in container?.engine.terminateWebProcess() }
            }
            container.engine.terminateWebProcess()
            try await waitUntil(timeout: .seconds(30)) { events.gaveUp == [3] }
            // Backoff plus a margin: nothing more may happen.
            try await Task.sleep(for: .seconds(2))
            #expect(await recovery.reloads == 3)
            #expect(events.gaveUp == [3])
            #expect(events.posts.isEmpty, "no page finished loading, so none was told it recovered")
            if case .gaveUp = recovery.phase {} else { Issue.record("recovery did not give up") }

            // The host loading again revives the page.
            events.onCommit = nil
            try await container.loadTourPage("test/recover.html", events: events)
            container.engine.terminateWebProcess()
            try await waitUntil(timeout: .seconds(30)) { events.posts.count == 1 }
        }

        @Test @GTKActor func filePageComesBackThroughLoadFile() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "recover-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let pages = try #require(TourPages.directory)
            let file = directory.appendingPathComponent("recover.html")
            try FileManager.default.copyItem(at: pages.appendingPathComponent("test/recover.html"), to: file)

            let events = PagePosts()
            let container = try Self.makeContainer(events)
            defer { container.close() }
            let before = events.finishes
            container.loadFile(file, allowingReadAccessTo: directory)
            try await waitUntil(timeout: .seconds(30)) { events.finishes > before }
            for kill in 1...3 {
                container.engine.terminateWebProcess()
                try await waitUntil(timeout: .seconds(30)) { events.posts.count == kill }
                #expect(container.engine.url == file)
                try await Task.sleep(for: .milliseconds(350))
            }
        }

        @Test @GTKActor func blankPageWithoutASignalIsDetectedAndRecovered() async throws {
            let events = PagePosts()
            let container = try Self.makeContainer(events)
            defer { container.close() }
            try await container.loadTourPage("test/recover.html", events: events)
            // WebKitGTK may report the title after the load finished (later still on a loaded machine); the check
            // learns it from a page it finds alive.
            try await waitUntil(timeout: .seconds(10)) { container.engine.title == "recover" }
            #expect(await container.checkForBlankPage() == nil, "a live page is not blank")
            #expect(await container.recovery?.expectedPageTitle == "recover")

            // What white screens look like when no signal comes: the title is gone…
            _ = try await container.engine.evaluateJavaScript("document.title = ''; 1")
            try await waitUntil(timeout: .seconds(10)) { container.engine.title == "" }
            #expect(await container.checkForBlankPage() == "title 'recover' is gone")
            try await waitUntil(timeout: .seconds(30)) { events.posts.count == 1 }
            try await waitUntil(timeout: .seconds(10)) { container.engine.title == "recover" }
            try await Task.sleep(for: .milliseconds(350))
            // …or the body shows nothing.
            _ = try await container.engine.evaluateJavaScript("document.body.replaceChildren(); 1")
            #expect(await container.checkForBlankPage() == "the body shows nothing")
            try await waitUntil(timeout: .seconds(30)) { events.posts.count == 2 }
            #expect(try events.pageReports().map { $0["reason"] } == ["blank", "blank"])
            #expect(try await container.evaluate("document.body.childElementCount", as: Int.self) > 0)
            #expect(await container.checkForBlankPage() == nil)
        }
    }
}
#endif
