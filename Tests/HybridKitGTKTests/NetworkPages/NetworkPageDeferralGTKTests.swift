#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestSupport
import Testing

/// A host's load while a cold view's blank start page loads waits for that page's end (threat model lines 15 and 28):
/// what a host does meanwhile, in real WebKitGTK. A cold network page whose document takes 1.5 s starts the blank
/// page; the host's loads that follow go to the other origin's server, whose log says which ran. Takes the
/// engine's shared cookie store alone, as the other network-page suites.
@Suite(.serialized, .engineCookieStoreExclusive) struct NetworkPageDeferralGTKTests {
    /// A cold view showing its blank start page while the network page's document is fetched.
    @GTKActor static func warmingUp(
        _ fixture: NetworkPageFixture, policy: NetworkPagePolicy = NetworkPagePolicy(allowsPrivateAddresses: true)
    ) throws -> HybridContainer {
        let container = try HybridContainer(
            configuration: fixture.configuration(try fixture.prefetcher(policy: policy)), factory: GTKEngineFactory())
        try container.load(try fixture.url("/slow?ms=1500"))
        #expect(container.engine.url?.absoluteString == "about:blank", "the process did not start during the fetch")
        return container
    }

    func other(_ fixture: NetworkPageFixture, _ query: String) throws -> URL {
        try #require(URL(string: fixture.other.origin + "/page?\(query)"))
    }

    @Test @GTKActor func twoLoadsDuringTheBlankStartOnlyTheLastRuns() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let container = try Self.warmingUp(fixture)
        defer { container.close() }
        let events = container.loadEvents()
        try container.load(try other(fixture, "n=1"))
        container.loadHTML("<title>html</title>", baseURL: try other(fixture, "n=html"))
        let last = try other(fixture, "n=2")
        try container.load(last)
        let named = await NetworkPageFixture.named(events)
        #expect(named == Array(repeating: last.absoluteString, count: 3), "\(named)")
        #expect(try await container.engine.evaluateJavaScript("document.title") == "\"other\"")
        #expect(fixture.otherLog.lines.withLock { $0 } == ["GET /page?n=2"])
        // The network page's own document never showed.
        try await Task.sleep(for: .milliseconds(1800))
        #expect(container.engine.url == last)
    }

    @Test @GTKActor func aLoadThatWaitedIsDroppedWhenTheContainerClosesOrIsReleased() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let containers = LiveObjects.containers
        let handles = LiveObjects.engineHandles
        do {
            let closed = try Self.warmingUp(fixture)
            try closed.load(try other(fixture, "n=closed"))
            closed.close()
            let released = try Self.warmingUp(fixture)
            released.loadHTML("<title>released</title>", baseURL: try other(fixture, "n=released"))
            try released.load(try other(fixture, "n=released"))
        }
        // Past the document's 1.5 s and the blank page: nothing ran, and nothing was kept.
        try await Task.sleep(for: .seconds(2))
        #expect(fixture.otherLog.lines.withLock { $0 }.isEmpty)
        try await waitUntil(timeout: .seconds(10)) {
            LiveObjects.containers == containers && LiveObjects.engineHandles == handles
        }
    }

    @Test @GTKActor func aStopDuringTheBlankStartDropsTheLoadThatWaited() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let container = try Self.warmingUp(fixture)
        defer { container.close() }
        try container.load(try other(fixture, "n=stopped"))
        container.stopLoading()
        try await Task.sleep(for: .milliseconds(2000))
        // As a load the host stopped at once: it never reaches the server, the view shows no page of it, nor the
        // network page whose document was still being fetched.
        #expect(fixture.otherLog.lines.withLock { $0 }.isEmpty)
        #expect(container.engine.url?.host != "127.0.0.2", "\(container.engine.url?.absoluteString ?? "nil")")
        #expect(container.engine.url?.path != "/slow", "\(container.engine.url?.absoluteString ?? "nil")")
        // The stopped blank page holds nothing back: the next load runs at once.
        let start = ContinuousClock.now
        let next = try other(fixture, "n=next")
        try await container.loadAndWait(next)
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(fixture.otherLog.lines.withLock { $0 } == ["GET /page?n=next"])
        // A network page's hand-over on a view that has its process, stopped while its document is fetched.
        try container.load(try fixture.url("/slow?ms=800"))
        container.stopLoading()
        try await Task.sleep(for: .milliseconds(1500))
        #expect(container.engine.url == next, "\(container.engine.url?.absoluteString ?? "nil")")
    }

    /// The host reloads the view while its blank start page loads: the blank page is never what the host sees (no
    /// event names it), and the network page still shows, from one native fetch.
    @Test @GTKActor func aReloadDuringTheBlankStartStillShowsTheNetworkPage() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let container = try Self.warmingUp(fixture)
        defer { container.close() }
        let events = container.loadEvents()
        container.engine.reload()
        let named = await NetworkPageFixture.named(events)
        let page = try fixture.url("/slow?ms=1500").absoluteString
        #expect(!named.isEmpty && named.allSatisfy { $0 == page }, "\(named)")
        #expect(container.engine.url?.absoluteString == page)
        #expect(try await container.engine.evaluateJavaScript("document.title") == "\"slow ran\"")
        #expect(fixture.requests("GET /slow").count == 1, "\(fixture.requests("GET"))")
    }

    @Test @GTKActor func aCrashDuringTheBlankStartStillLoadsTheHostSPage() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let container = try Self.warmingUp(fixture)
        defer { container.close() }
        let events = container.loadEvents()
        let page = try other(fixture, "n=crash")
        try container.load(page)
        container.engine.terminateWebProcess()
        for await event in events {
            if case .finished(let url) = event, url == page { break }
        }
        #expect(try await container.engine.evaluateJavaScript("document.title") == "\"other\"")
        #expect(fixture.otherLog.lines.withLock { $0 } == ["GET /page?n=crash"])
    }

    @Test @GTKActor func aBlankStartPastTheWaitLoadsTheHostSPageWithAWarning() async throws {
        let logs = LogCapture.installed()
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        logs.reset()
        // A wait shorter than a cold process's start: the host's page loads anyway, and the log says why.
        let container = try Self.warmingUp(
            fixture, policy: NetworkPagePolicy(maximumWait: .milliseconds(30), allowsPrivateAddresses: true))
        defer { container.close() }
        let page = try other(fixture, "n=late")
        try await container.loadAndWait(page)
        #expect(try await container.engine.evaluateJavaScript("document.title") == "\"other\"")
        #expect(
            logs.count(
                "hybrid.network-pages",
                "the view's blank start page did not end within the network page's wait: loading the page anyway")
                >= 1, "\(logs.labels())")
    }
}
#endif
