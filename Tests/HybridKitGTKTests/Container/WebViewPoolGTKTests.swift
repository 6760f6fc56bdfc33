#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridKit
import HybridKitGTK
import Synchronization
import Testing

/// The pool in real WebKitGTK: a reused view carries nothing of its previous page.
extension ContainerGTKTests {
    @Suite struct Pool {
        static let cancelled = Mutex(0)

        static let slow = BridgeModule("slow", access: .origins("app://demo")) { module in
            module.method("wait") { (_: JSONValue, _) async throws -> Bool in
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    Pool.cancelled.withLock { $0 += 1 }
                    throw error
                }
                return true
            }
        }

        static let other = BridgeModule("other", access: .origins("app://demo")) { module in
            module.method("ping") { (_: JSONValue, _) -> String in "pong" }
        }

        @GTKActor static func pool(_ host: PagePosts, warm: Int = 1, capacity: Int = 1) async throws -> WebViewPool {
            _ = try tourServing()
            let pool = WebViewPool(
                factory: GTKEngineFactory(),
                configuration: PoolConfiguration(
                    warmCount: warm, capacity: capacity,
                    hostUserScripts: [
                        UserScript(source: "window.__hostMark = (window.__hostMark || 0) + 1;", allFrames: false)
                    ],
                    hostMessageHandlers: [HostMessageHandler(name: "hostEcho", handler: host)]))
            try await pool.prewarm()
            return pool
        }

        @GTKActor static func container(
            _ pool: WebViewPool, _ modules: [BridgeModule], _ events: PagePosts
        ) throws -> HybridContainer {
            // No default document.cookie shim: its module and its long-poll call would be counted as the page's.
            let container = try HybridContainer(
                configuration: ContainerConfiguration(
                    modules: modules, features: [try tourServing()], documentCookies: .off),
                pool: pool)
            container.navigationDelegate = events
            return container
        }

        @Test @GTKActor func reusedViewCarriesNoStateFromThePreviousPage() async throws {
            let host = PagePosts()
            let pool = try await Self.pool(host)
            #expect(await pool.idleCount == 1)

            // First tenant: leaves every kind of state behind.
            let eventsA = PagePosts()
            let first = try Self.container(pool, [Self.slow], eventsA)
            #expect(first.isPooled)
            try await first.loadTourPage("test/blank.html", events: eventsA)
            try await waitUntil(timeout: .seconds(30)) {
                (try? await first.engine.evaluateJavaScript("hybrid.isReady")) == "true"
            }
            let freshHistory: Int = try await first.evaluate("history.length")
            let cancelledBefore = Self.cancelled.withLock { $0 }
            _ = try await first.engine.evaluateJavaScript(
                """
                window.leftBehind = 42;
                sessionStorage.setItem('secret', 'tenant A');
                history.pushState({}, '', '#one'); history.pushState({}, '', '#two');
                hybrid.call('slow', 'wait').catch(() => {});
                1
                """)
            try await waitUntil(timeout: .seconds(30)) { first.bridge.pendingCallCount == 1 }
            #expect(try await first.evaluate("history.length", as: Int.self) == freshHistory + 2)
            let engineA = ObjectIdentifier(first.engine as AnyObject)
            first.close()
            try await waitUntil(timeout: .seconds(30)) {
                let stats = pool.stats
                return stats.reused + stats.discarded.values.reduce(0, +) == 1
            }
            let discarded = pool.stats.discarded
            #expect(discarded.isEmpty, "\(discarded)")
            #expect(await pool.stats.reused == 1)
            #expect(await pool.idleCount == 1)
            try await waitUntil(timeout: .seconds(30)) { Self.cancelled.withLock { $0 } == cancelledBefore + 1 }

            // Second tenant, same view.
            let eventsB = PagePosts()
            let second = try Self.container(pool, [Self.other], eventsB)
            #expect(second.isPooled)
            #expect(ObjectIdentifier(second.engine as AnyObject) == engineA, "the pool handed out the same view")
            try await second.loadTourPage("test/blank.html", events: eventsB)
            try await waitUntil(timeout: .seconds(30)) {
                (try? await second.engine.evaluateJavaScript("hybrid.isReady")) == "true"
            }
            #expect(try await second.evaluate("typeof window.leftBehind", as: String.self) == "undefined")
            #expect(try await second.evaluate("sessionStorage.getItem('secret')", as: String?.self) == nil)
            #expect(try await second.evaluate("sessionStorage.length", as: Int.self) == 0)
            #expect(try await second.evaluate("history.length", as: Int.self) == freshHistory)
            #expect(try await second.evaluate("Object.keys(hybrid.modules).sort()", as: [String].self) == ["other"])
            #expect(await second.bridge.pendingCallCount == 0)
            #expect(await second.bridge.stats.calls == 0)
            // A call to the previous page's module fails: that module is not here.
            _ = try await second.engine.evaluateJavaScript(
                "hybrid.call('slow', 'wait').then(() => { window.outcome = 'ok' }, (e) => { window.outcome = e.code }); 1"
            )
            try await waitUntil(timeout: .seconds(10)) {
                (try? await second.engine.evaluateJavaScript("window.outcome !== undefined")) == "true"
            }
            #expect(try await second.evaluate("window.outcome", as: String.self) == "unknown_module")
            // The host's own script ran exactly once, and its handler still hears pages.
            #expect(try await second.evaluate("window.__hostMark", as: Int.self) == 1)
            _ = try await second.engine.evaluateJavaScript("webkit.messageHandlers.hostEcho.postMessage('B'); 1")
            try await waitUntil(timeout: .seconds(10)) { host.posts == ["B"] }
            second.close()
            pool.drain()
        }

        @Test @GTKActor func viewThatSawTwoOriginsIsClosedNotReused() async throws {
            let host = PagePosts()
            let pool = try await Self.pool(host)
            let events = PagePosts()
            let container = try Self.container(pool, [], events)
            try await container.loadTourPage("test/blank.html", events: events)
            let before = events.finishes
            try container.load(try #require(URL(string: "app://elsewhere/test/blank.html")))
            try await waitUntil(timeout: .seconds(30)) { events.finishes > before }
            container.close()
            try await waitUntil(timeout: .seconds(30)) { pool.stats.discarded.values.reduce(0, +) == 1 }
            #expect(await pool.stats.discarded["pages committed 2 origins"] == 1)
            #expect(await pool.idleCount == 0)
            pool.drain()
        }

        /// A view returned with its web process dead cannot have its storage cleared: it is closed, not reused.
        @Test @GTKActor func viewWhoseStorageCannotBeClearedIsClosedNotReused() async throws {
            let host = PagePosts()
            let pool = try await Self.pool(host)
            let events = PagePosts()
            let container = try Self.container(pool, [], events)
            try await container.loadTourPage("test/blank.html", events: events)
            container.engine.terminateWebProcess()
            container.close()
            try await waitUntil(timeout: .seconds(30)) { pool.stats.discarded.values.reduce(0, +) == 1 }
            let discarded = pool.stats.discarded
            #expect(discarded["sessionStorage could not be cleared"] == 1, "\(discarded)")
            #expect(await pool.stats.reused == 0)
            #expect(await pool.idleCount == 0)
            pool.drain()
        }

        @Test @GTKActor func poolIsCappedAndDrainsOnMemoryPressure() async throws {
            let host = PagePosts()
            let handlesBefore = LiveObjects.engineHandles
            let pool = try await Self.pool(host, warm: 2, capacity: 2)
            #expect(await pool.idleCount == 2)
            let events = PagePosts()
            var containers: [HybridContainer] = []
            for _ in 0..<3 { containers.append(try Self.container(pool, [], events)) }
            #expect(containers.map(\.isPooled) == [true, true, false], "the third was made cold")
            #expect(await pool.idleCount == 0)
            for container in containers { container.close() }
            containers.removeAll()
            try await waitUntil(timeout: .seconds(30)) {
                let stats = pool.stats
                return stats.reused + stats.discarded.values.reduce(0, +) == 3
            }
            #expect(await pool.idleCount == 2)
            #expect(await pool.stats.discarded["pool full"] == 1)

            pool.drain()
            #expect(await pool.idleCount == 0)
            #expect(await pool.stats.drained == 2)
            try await waitUntil(timeout: .seconds(30)) { LiveObjects.engineHandles == handlesBefore }
        }
    }
}
#endif
