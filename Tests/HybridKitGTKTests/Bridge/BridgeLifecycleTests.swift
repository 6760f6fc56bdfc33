#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Synchronization
import Testing

@Suite(.serialized) struct BridgeLifecycleTests {
    /// Counts cancellations seen by the slow method.
    static let cancelled = Mutex(0)

    static let slow = BridgeModule("slow", access: .origins("app://demo")) { module in
        module.method("wait") { (_: JSONValue, _) async throws -> Bool in
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                BridgeLifecycleTests.cancelled.withLock { $0 += 1 }
                throw error
            }
            return true
        }
    }

    @Test @GTKActor func navigatingAwayRejectsEachPendingCallOnce() async throws {
        let page = try TestPage(modules: [Self.slow])
        defer { page.close() }
        let before = Self.cancelled.withLock { $0 }
        try await page.load("test/pending.html")
        try await page.waitFor("window.started")
        try await waitUntil(timeout: .seconds(30)) { page.page.bridge.pendingCallCount == 3 }

        try await page.load("test/blank.html")
        let outcomes: [[String: JSONValue]] = try await page.evaluate("JSON.parse(sessionStorage.getItem('outcomes'))")
        #expect(outcomes.count == 3)
        #expect(outcomes.allSatisfy { $0["code"] == "navigated" && $0["resolved"] == nil })
        #expect(Set(outcomes.compactMap { $0["i"] }).count == 3, "each call settled exactly once")
        #expect(await page.page.bridge.pendingCallCount == 0)
        #expect(await page.page.bridge.stats.abandoned == 3)
        try await waitUntil(timeout: .seconds(30)) { Self.cancelled.withLock { $0 } - before == 3 }
        #expect(await page.page.bridge.stats.succeeded == 0)
    }

    @Test @GTKActor func createAndDestroyLeavesNothingAlive() async throws {
        try GTKRuntime.shared.start(.headless)
        let liveBefore = GTKWebView.liveCount
        var bridges: [WeakBox<BridgeEngine>] = []
        var views: [WeakBox<GTKWebView>] = []
        for cycle in 0..<100 {
            let page = try TestPage(modules: [Self.slow])
            bridges.append(WeakBox(page.page.bridge))
            views.append(WeakBox(page.view))
            if cycle.isMultiple(of: 10) {
                // Every tenth cycle goes as far as a loaded page with a ready bridge.
                try await page.load("test/blank.html")
                try await page.waitFor("hybrid.isReady")
            }
            page.close()
        }
        // Let GLib finalise what the closed views released.
        try await waitUntil(timeout: .seconds(30)) { views.allSatisfy { $0.value == nil } }
        #expect(
            bridges.allSatisfy { $0.value == nil }, "bridges still alive: \(bridges.filter { $0.value != nil }.count)")
        #expect(GTKWebView.liveCount <= liveBefore)
    }
}

final class WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
#endif
