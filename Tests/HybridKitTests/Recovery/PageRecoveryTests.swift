import Foundation
import HybridKit
import HybridKitTesting
import Testing

/// The recovery policy applied to an engine, with the fake engine: which load comes back, and when.
@EngineActor struct PageRecoveryTests {
    final class Events: PageRecoveryDelegate, @unchecked Sendable {
        var recovered: [RecoveryReport] = []
        var gaveUp: [Int] = []
        func pageRecovered(_ report: RecoveryReport) { recovered.append(report) }
        func pageRecoveryGaveUp(attempts: Int, trigger: RecoveryTrigger) { gaveUp.append(attempts) }
    }

    let fast = RecoveryPolicy(
        maxConsecutiveAttempts: 3, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(5),
        stableAfter: .seconds(60))

    func make(_ engine: FakeEngine, visible: Bool = true, policy: RecoveryPolicy? = nil) -> (PageRecovery, Events) {
        let recovery = PageRecovery(engine: engine, policy: policy ?? fast, isVisible: visible)
        let events = Events()
        recovery.setDelegate(events)
        return (recovery, events)
    }

    @Test func httpPageReloadsAndFilePageLoadsItsFileAgain() async throws {
        let engine = FakeEngine()
        let (recovery, events) = make(engine)
        recovery.webProcessDidTerminate(reason: .crashed)
        #expect(await waitUntil { engine.loadLog == ["reload"] })
        recovery.loadFinished()
        #expect(
            events.recovered == [
                RecoveryReport(reason: "crashed", attempt: 1, url: "https://app.example", deferred: false)
            ])

        let file = URL(fileURLWithPath: "/srv/pages/index.html")
        engine.currentURL = file
        await recovery.hostWillLoad(.file(file, readAccess: URL(fileURLWithPath: "/srv")))
        engine.loadLog.removeAll()
        recovery.webProcessDidTerminate(reason: .exceededMemoryLimit)
        #expect(await waitUntil { engine.loadLog == ["file \(file.absoluteString)"] })
    }

    @Test func htmlPageGetsItsHTMLAgain() async throws {
        let engine = FakeEngine()
        engine.currentURL = URL(string: "about:blank")
        let (recovery, _) = make(engine)
        await recovery.hostWillLoad(.html("<p>hi</p>", baseURL: nil))
        recovery.webProcessDidTerminate(reason: .crashed)
        #expect(await waitUntil { engine.loadLog == ["html nil"] })
    }

    @Test func hiddenPageIsReloadedOnlyWhenShown() async throws {
        let engine = FakeEngine()
        let (recovery, events) = make(engine, visible: false)
        recovery.webProcessDidTerminate(reason: .terminatedByAPI)
        await settle()
        try await Task.sleep(for: .milliseconds(50))
        #expect(engine.loadLog.isEmpty)
        recovery.setVisible(true)
        #expect(await waitUntil { engine.loadLog == ["reload"] })
        recovery.loadFinished()
        #expect(events.recovered.map(\.deferred) == [true])
    }

    @Test func pageThatAlwaysDiesStopsAtTheMaximum() async throws {
        let engine = FakeEngine()
        let (recovery, events) = make(engine)
        for round in 1...3 {
            recovery.webProcessDidTerminate(reason: .crashed)
            #expect(await waitUntil { engine.loadLog.count == round })
        }
        recovery.webProcessDidTerminate(reason: .crashed)
        #expect(await waitUntil { events.gaveUp == [3] })
        try await Task.sleep(for: .milliseconds(50))
        #expect(engine.loadLog.count == 3, "no reload after giving up")
        #expect(events.recovered.isEmpty)
        // A host load revives it.
        recovery.hostWillLoad(.request(EngineRequest(url: URL(string: "https://app.example/b")!)))
        recovery.webProcessDidTerminate(reason: .crashed)
        #expect(await waitUntil { engine.loadLog.count == 4 })
    }

    @Test func blankPageWithoutASignalIsFoundAndRecovered() async throws {
        let engine = FakeEngine()
        engine.currentTitle = "Shop"
        engine.evaluationResult = { _ in #""{\"t\":\"Shop\",\"c\":true}""# }
        let (recovery, events) = make(engine)
        recovery.loadFinished()
        #expect(await recovery.checkForBlankPage() == nil)
        #expect(engine.loadLog.isEmpty)

        engine.currentTitle = ""
        #expect(await recovery.checkForBlankPage() != nil)
        #expect(await waitUntil { engine.loadLog == ["reload"] })
        engine.currentTitle = "Shop"
        recovery.loadFinished()
        #expect(events.recovered.map(\.reason) == ["blank"])

        engine.evaluationResult = { _ throws(EngineError) in throw .javaScript("dead") }
        #expect(await recovery.checkForBlankPage() == "the page did not answer the probe")
    }
}
