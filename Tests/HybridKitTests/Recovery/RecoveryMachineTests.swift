import HybridKit
import Testing

struct RecoveryMachineTests {
    let start = ContinuousClock.now
    let policy = RecoveryPolicy(
        maxConsecutiveAttempts: 3, initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(300),
        stableAfter: .seconds(2))
    let killed = RecoveryTrigger.processTerminated(.terminatedByAPI)

    @Test func visiblePageIsReloadedAtOnceAndRecovers() {
        var machine = RecoveryMachine(policy: policy)
        #expect(machine.pageDied(killed, at: start) == .reload(attempt: 1, after: .zero))
        let began1 = machine.beginAttempt(1)
        #expect(began1)
        #expect(machine.loadFinished(at: start) == .recovered(attempt: 1, killed))
        #expect(machine.phase == .healthy)
    }

    @Test func hiddenPageWaitsUntilShown() {
        var machine = RecoveryMachine(policy: policy, isVisible: false)
        #expect(machine.pageDied(killed, at: start) == .none)
        #expect(machine.phase == .waitingUntilVisible(killed))
        // Dying again while hidden changes nothing: one recovery when shown.
        #expect(machine.pageDied(killed, at: start) == .none)
        #expect(machine.visibilityChanged(false) == .none)
        #expect(machine.visibilityChanged(true) == .reload(attempt: 1, after: .zero))
        let began1 = machine.beginAttempt(1)
        #expect(began1)
        #expect(machine.loadFinished(at: start) == .recovered(attempt: 1, killed))
    }

    @Test func pageHiddenDuringBackoffWaitsAndTheAttemptDoesNotCount() {
        var machine = RecoveryMachine(policy: policy)
        _ = machine.pageDied(killed, at: start)
        #expect(machine.visibilityChanged(false) == .none)
        let began1 = machine.beginAttempt(1)
        #expect(!began1)
        #expect(machine.phase == .waitingUntilVisible(killed))
        #expect(machine.visibilityChanged(true) == .reload(attempt: 1, after: .zero))
    }

    @Test func pageThatAlwaysDiesBacksOffAndGivesUp() {
        var machine = RecoveryMachine(policy: policy)
        var actions: [RecoveryMachine.Action] = []
        var now = start
        for _ in 0..<6 {
            let action = machine.pageDied(killed, at: now)
            actions.append(action)
            if case .reload(let attempt, _) = action {
                let began = machine.beginAttempt(attempt)
                #expect(began)
                // It finishes loading and dies again right away.
                _ = machine.loadFinished(at: now)
            }
            now += .milliseconds(100)
        }
        #expect(
            actions == [
                .reload(attempt: 1, after: .zero), .reload(attempt: 2, after: .milliseconds(100)),
                .reload(attempt: 3, after: .milliseconds(200)), .giveUp(attempts: 3, killed), .none, .none,
            ])
        #expect(machine.phase == .gaveUp(attempts: 3, killed))
        machine.reset()
        #expect(machine.pageDied(killed, at: now) == .reload(attempt: 1, after: .zero))
    }

    @Test func pageThatDiesWhileLoadingCountsAsAFailedAttempt() {
        var machine = RecoveryMachine(policy: policy)
        _ = machine.pageDied(killed, at: start)
        let began1 = machine.beginAttempt(1)
        #expect(began1)
        #expect(machine.pageDied(killed, at: start) == .reload(attempt: 2, after: .milliseconds(100)))
        let began2 = machine.beginAttempt(2)
        #expect(began2)
        #expect(machine.loadFailed() == .reload(attempt: 3, after: .milliseconds(200)))
    }

    @Test func pageThatStaysUpStartsAFreshSeries() {
        var machine = RecoveryMachine(policy: policy)
        var now = start
        for _ in 0..<50 {
            #expect(machine.pageDied(killed, at: now) == .reload(attempt: 1, after: .zero))
            let began1 = machine.beginAttempt(1)
            #expect(began1)
            #expect(machine.loadFinished(at: now) == .recovered(attempt: 1, killed))
            now += .seconds(3)
        }
    }

    @Test func staleOrDuplicateSignalsAddNoAttempt() {
        var machine = RecoveryMachine(policy: policy)
        _ = machine.pageDied(killed, at: start)
        #expect(machine.pageDied(.blankPage("x"), at: start) == .none)
        let began7 = machine.beginAttempt(7)
        #expect(!began7)
        #expect(machine.loadFinished(at: start) == .none, "a load that is not the recovery's recovers nothing")
    }

    @Test func backoffDoublesUpToTheCap() {
        #expect(policy.backoff(beforeAttempt: 1) == .zero)
        #expect(policy.backoff(beforeAttempt: 2) == .milliseconds(100))
        #expect(policy.backoff(beforeAttempt: 3) == .milliseconds(200))
        #expect(policy.backoff(beforeAttempt: 4) == .milliseconds(300))
        #expect(policy.backoff(beforeAttempt: 30) == .milliseconds(300))
    }

    @Test func blankVerdicts() {
        let report = BlankPageProbe.report(fromEvaluationResult: #""{\"t\":\"Shop\",\"c\":true}""#)
        #expect(report == BlankPageProbe.Report(title: "Shop", hasContent: true))
        #expect(BlankPageProbe.report(fromEvaluationResult: "garbage") == nil)
        func verdict(_ title: String?, expected: String?, _ probe: BlankPageProbe.Report?) -> String? {
            BlankPageProbe.verdict(
                engineTitle: title, expectedTitle: expected, probe: probe, probed: true, policy: policy)
        }
        let alive = BlankPageProbe.Report(title: "Shop", hasContent: true)
        #expect(verdict("Shop", expected: "Shop", alive) == nil)
        #expect(verdict("", expected: "Shop", alive) != nil, "the title vanished")
        #expect(verdict("", expected: "", alive) == nil, "a page without a title is not blank for lacking one")
        #expect(verdict("", expected: nil, BlankPageProbe.Report(title: "", hasContent: false)) != nil)
        #expect(verdict("Shop", expected: "Shop", nil) != nil, "a page that cannot answer is dead")
    }
}
