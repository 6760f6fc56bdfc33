import Crypto
import Foundation
import HybridPackages
import HybridTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Boot safety in the store: a version on trial is rolled back after its allowed failed opens, marked bad with
/// the reason, reported, and never offered again; a confirmed version stays.
@Suite struct BootSafetyTests {
    static let id = "com.example.shop"

    /// What the host's rollback callback was told.
    final class Reports: Sendable {
        let list = Mutex<[BootRollback]>([])
        var all: [BootRollback] { list.withLock { $0 } }
        func add(_ rollback: BootRollback) { list.withLock { $0.append(rollback) } }
    }

    /// 1.0.0 installed and good, 2.0.0 installed, activated and put on trial.
    func twoVersions(
        _ fixture: Fixture, policy: BootTrialPolicy = BootTrialPolicy(),
        reports: Reports = Reports()
    ) throws -> (PackageStore, BootGuard) {
        let store = try fixture.openStore()
        let installer = fixture.installer(store)
        try installer.install(packageAt: try fixture.pack("1.0.0"))
        try installer.install(packageAt: try fixture.pack("2.0.0"))
        let bootGuard = BootGuard(store: store, policy: policy, onRollback: reports.add)
        try bootGuard.beginTrial(Self.id)
        return (store, bootGuard)
    }

    static func version(_ text: String) throws -> SemanticVersion { try #require(SemanticVersion(text)) }

    @Test func aConfirmedVersionStays() throws {
        let fixture = try Fixture()
        let (store, bootGuard) = try twoVersions(fixture)
        #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("2.0.0"), onTrial: true))
        try bootGuard.confirm(Self.id)
        #expect(!bootGuard.isOnTrial(Self.id))
        // Later failures of a confirmed version are not boot failures.
        #expect(
            try bootGuard.openFailed(Self.id, reason: .blankPage) == .serve(try Self.version("2.0.0"), onTrial: false))
        #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("2.0.0"), onTrial: false))
        #expect(store.activeVersion(Self.id) == (try Self.version("2.0.0")))
        #expect(store.badVersions(Self.id).isEmpty)
    }

    @Test(arguments: [BootFailure.notConfirmed, .webProcessTerminated, .blankPage])
    func aFailedOpenRollsBackAndMarksTheVersionBad(reason: BootFailure) throws {
        let fixture = try Fixture()
        let reports = Reports()
        let (store, bootGuard) = try twoVersions(fixture, reports: reports)
        #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("2.0.0"), onTrial: true))
        let decision = try bootGuard.openFailed(Self.id, reason: reason)
        #expect(decision == .rolledBack(from: try Self.version("2.0.0"), to: try Self.version("1.0.0"), reason: reason))
        #expect(store.activeVersion(Self.id) == (try Self.version("1.0.0")))
        #expect(store.badVersions(Self.id).map(\.version) == [try Self.version("2.0.0")])
        #expect(store.badVersions(Self.id).first?.reason == reason)
        #expect(reports.all.map(\.reason) == [reason])
        // The very next open serves the previous good version, not on trial; a reopened store agrees.
        #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("1.0.0"), onTrial: false))
        #expect(try fixture.openStore().activeVersion(Self.id) == (try Self.version("1.0.0")))
    }

    @Test func theConfiguredNumberOfFailuresIsAllowed() throws {
        let fixture = try Fixture()
        let (store, bootGuard) = try twoVersions(fixture, policy: BootTrialPolicy(failedOpensAllowed: 3))
        for _ in 0..<2 {
            _ = try bootGuard.willOpen(Self.id)
            #expect(
                try bootGuard.openFailed(Self.id, reason: .notConfirmed)
                    == .serve(try Self.version("2.0.0"), onTrial: true))
        }
        _ = try bootGuard.willOpen(Self.id)
        if case .rolledBack = try bootGuard.openFailed(Self.id, reason: .notConfirmed) {
        } else {
            Issue.record("the third failure must roll back")
        }
        #expect(store.activeVersion(Self.id) == (try Self.version("1.0.0")))
    }

    @Test func theUpdaterNeverOffersABadVersionAgain() async throws {
        let fixture = try Fixture()
        let (store, bootGuard) = try twoVersions(fixture)
        _ = try bootGuard.willOpen(Self.id)
        try bootGuard.openFailed(Self.id, reason: .webProcessTerminated)

        let client = InMemoryUpdateClient()
        let full = try client.publish(fixture.url("com.example.shop-2.0.0.zip"), location: "full-2")
        client.setRelease(PackageRelease(id: Self.id, version: try Self.version("2.0.0"), full: full))
        var updater = PackageUpdater(installer: fixture.installer(store), client: client)
        updater.bootGuard = bootGuard
        #expect(try await updater.checkForUpdate(Self.id) == nil)
        #expect(try await updater.update(Self.id) == .upToDate(try Self.version("1.0.0")))
        #expect(store.activeVersion(Self.id) == (try Self.version("1.0.0")))

        // A later release is offered, installed and put on trial.
        let full3 = try client.publish(try fixture.pack("3.0.0"), location: "full-3")
        client.setRelease(PackageRelease(id: Self.id, version: try Self.version("3.0.0"), full: full3))
        #expect(
            try await updater.update(Self.id)
                == .updated(from: try Self.version("1.0.0"), to: try Self.version("3.0.0"), viaDiff: false))
        #expect(bootGuard.isOnTrial(Self.id))
    }

    @Test func hostileStateIsHandled() throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        let bootGuard = BootGuard(store: store)
        #expect(throws: PackageError.self) { try bootGuard.willOpen("nope") }
        #expect(throws: PackageError.self) { try bootGuard.beginTrial("nope") }
        try fixture.installer(store).install(packageAt: try fixture.pack("1.0.0"))
        // The only version fails its trial: nothing to roll back to, a typed error, and the version stays bad.
        try bootGuard.beginTrial(Self.id)
        _ = try bootGuard.willOpen(Self.id)
        #expect(throws: PackageError.self) { try bootGuard.openFailed(Self.id, reason: .blankPage) }
        #expect(store.badVersions(Self.id).map(\.version) == [try Self.version("1.0.0")])
        // A damaged bad list reads as empty rather than crashing; a damaged trial file as a fresh trial, never as
        // a confirmation.
        try Data("{".utf8).write(to: fixture.storeRoot.appendingPathComponent("\(Self.id)/bad.json"))
        try Data("\u{0}".utf8).write(to: fixture.storeRoot.appendingPathComponent("\(Self.id)/trial.json"))
        #expect(store.badVersions(Self.id).isEmpty)
        #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("1.0.0"), onTrial: true))
    }

    /// A clock the test moves.
    final class TestClock: PackageClock {
        let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func now() -> Date { date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    /// A page that reloads (or navigates, or is closed and reopened) ends each open without a verdict: the
    /// attempt's deadline still counts from its first open, so the next open past it is a failure.
    @Test func reopeningDoesNotRestartTheDeadline() throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        let installer = fixture.installer(store)
        try installer.install(packageAt: try fixture.pack("1.0.0"))
        try installer.install(packageAt: try fixture.pack("2.0.0"))
        let clock = TestClock()
        let bootGuard = BootGuard(
            store: store, policy: BootTrialPolicy(failedOpensAllowed: 2, deadline: .seconds(10)), clock: clock)
        try bootGuard.beginTrial(Self.id)
        for _ in 0..<4 {
            #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("2.0.0"), onTrial: true))
            try bootGuard.openEnded(Self.id)
            clock.advance(3)
        }
        // 12 s after the first open: the first attempt failed; the second starts now with its own 10 s.
        #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("2.0.0"), onTrial: true))
        #expect(bootGuard.timeLeft(Self.id) == .seconds(10))
        clock.advance(4)
        #expect(bootGuard.timeLeft(Self.id) == .seconds(6))
        try bootGuard.openEnded(Self.id)
        clock.advance(7)
        #expect(
            try bootGuard.willOpen(Self.id)
                == .rolledBack(from: try Self.version("2.0.0"), to: try Self.version("1.0.0"), reason: .notConfirmed))
        #expect(store.activeVersion(Self.id) == (try Self.version("1.0.0")))
    }

    /// The steps of an update, in order, as package-install-child names them.
    static let updateSteps = [
        "verified", "stagingCreated", "file:2", "filesWritten", "synced", "committed", "trialRecorded", "activated",
    ]

    /// Runs package-install-child's update of 2.0.0 and SIGKILLs it at `step`; its output.
    func killUpdate(_ fixture: Fixture, at step: String) throws -> String {
        let update = try fixture.pack("2.0.0")
        let publicKey = fixture.url("key.pub")
        try fixture.keyPair.verificationKey.save(to: publicKey)
        let sha = SHA256.hash(data: try Data(contentsOf: update)).map { String(format: "%02x", $0) }.joined()
        let child = Process()
        child.executableURL = try #require(builtExecutable(named: "package-install-child"), "build it")
        child.arguments = ["update", fixture.storeRoot.path, update.path, publicKey.path, Self.id, "2.0.0", sha]
        var environment = ProcessInfo.processInfo.environment
        environment["HYBRID_INSTALL_PAUSE_AT"] = step
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        var seen = ""
        while !seen.contains("PAUSED") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL, "\(seen)")
        return seen
    }

    /// Killed at every step of an update, the app finds either the old version serving, off trial, or the new
    /// one serving on trial: never the new one unwatched. A failed open of the new one then rolls back.
    @Test(arguments: updateSteps)
    func anUpdateKilledAtAnyStepNeverLeavesTheNewVersionOffTrial(step: String) throws {
        let fixture = try Fixture()
        try fixture.installer(try fixture.openStore()).install(packageAt: try fixture.pack("1.0.0"))
        let output = try killUpdate(fixture, at: step)
        #expect(output.contains("PAUSED \(step)"), "\(output)")

        let store = try fixture.openStore()
        let bootGuard = BootGuard(store: store)
        let new = step == "activated"
        #expect(store.activeVersion(Self.id) == (try Self.version(new ? "2.0.0" : "1.0.0")))
        #expect(bootGuard.isOnTrial(Self.id) == new)
        if new {
            #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("2.0.0"), onTrial: true))
            #expect(
                try bootGuard.openFailed(Self.id, reason: .notConfirmed)
                    == .rolledBack(
                        from: try Self.version("2.0.0"), to: try Self.version("1.0.0"), reason: .notConfirmed))
        } else {
            #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("1.0.0"), onTrial: false))
        }
    }

    /// When the trial record cannot be written the update is not activated: the old version keeps serving, off
    /// trial, and the update fails with the file-system error naming the record.
    @Test func anUpdateWhoseTrialCannotBeRecordedIsNotActivated() async throws {
        let fixture = try Fixture()
        let store = try fixture.openStore()
        try fixture.installer(store).install(packageAt: try fixture.pack("1.0.0"))
        // A directory where the record goes: every write of it fails, as on a full or read-only disk.
        let record = fixture.storeRoot.appendingPathComponent("\(Self.id)/trial.json/blocked")
        try FileManager.default.createDirectory(at: record, withIntermediateDirectories: true)

        let client = InMemoryUpdateClient()
        let full = try client.publish(try fixture.pack("2.0.0"), location: "full-2")
        client.setRelease(PackageRelease(id: Self.id, version: try Self.version("2.0.0"), full: full))
        var updater = PackageUpdater(installer: fixture.installer(store), client: client)
        let bootGuard = BootGuard(store: store)
        updater.bootGuard = bootGuard
        let error = await #expect(throws: PackageError.self) { try await updater.update(Self.id) }
        #expect(error.map { "\($0)" }?.contains("trial.json") == true, "\(String(describing: error))")
        #expect(store.activeVersion(Self.id) == (try Self.version("1.0.0")))
        #expect(try fixture.openStore().activeVersion(Self.id) == (try Self.version("1.0.0")))
        #expect(!bootGuard.isOnTrial(Self.id))
    }

    /// A record that stops being writable while the version is on trial: the open cannot be counted, so the
    /// version is rolled back rather than served unwatched.
    @Test func aTrialThatCannotBeRecordedRollsBack() throws {
        let fixture = try Fixture()
        let reports = Reports()
        let (store, bootGuard) = try twoVersions(
            fixture, policy: BootTrialPolicy(failedOpensAllowed: 3), reports: reports)
        let record = fixture.storeRoot.appendingPathComponent("\(Self.id)/trial.json")
        try FileManager.default.removeItem(at: record)
        try FileManager.default.createDirectory(
            at: record.appendingPathComponent("blocked"), withIntermediateDirectories: true)
        #expect(
            try bootGuard.willOpen(Self.id)
                == .rolledBack(
                    from: try Self.version("2.0.0"), to: try Self.version("1.0.0"), reason: .trialNotRecorded))
        #expect(store.activeVersion(Self.id) == (try Self.version("1.0.0")))
        #expect(store.badVersions(Self.id).map(\.reason) == [.trialNotRecorded])
        #expect(reports.all.map(\.reason) == [.trialNotRecorded])
    }

    /// An update that lands before the previous one confirmed: when it fails, the version it rolls back to never
    /// confirmed either, so it goes back on trial, and its failure rolls back to the last good version.
    @Test func rollingBackToAVersionThatNeverConfirmedPutsItOnTrial() throws {
        let fixture = try Fixture()
        let (store, bootGuard) = try twoVersions(fixture)
        try fixture.installer(store).install(packageAt: try fixture.pack("3.0.0"))
        try bootGuard.beginTrial(Self.id)
        _ = try bootGuard.willOpen(Self.id)
        #expect(
            try bootGuard.openFailed(Self.id, reason: .blankPage)
                == .rolledBack(from: try Self.version("3.0.0"), to: try Self.version("2.0.0"), reason: .blankPage))
        #expect(bootGuard.isOnTrial(Self.id))
        #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("2.0.0"), onTrial: true))
        #expect(
            try bootGuard.openFailed(Self.id, reason: .notConfirmed)
                == .rolledBack(from: try Self.version("2.0.0"), to: try Self.version("1.0.0"), reason: .notConfirmed))
        #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("1.0.0"), onTrial: false))
    }

    /// A version on trial whose record is gone (deleted, or never written by an older app) stays on trial: the
    /// store's pointer, not the record, says whether it confirmed.
    @Test func aVersionOnTrialWithoutItsRecordIsStillOnTrial() throws {
        let fixture = try Fixture()
        let (store, _) = try twoVersions(fixture)
        try FileManager.default.removeItem(at: fixture.storeRoot.appendingPathComponent("\(Self.id)/trial.json"))
        let restarted = BootGuard(store: try fixture.openStore())
        #expect(restarted.isOnTrial(Self.id))
        #expect(try restarted.willOpen(Self.id) == .serve(try Self.version("2.0.0"), onTrial: true))
        #expect(
            try restarted.openFailed(Self.id, reason: .blankPage)
                == .rolledBack(from: try Self.version("2.0.0"), to: try Self.version("1.0.0"), reason: .blankPage))
        _ = store
    }

    @Test func aChildKilledDuringATrialOpenCountsAsAFailedOpen() async throws {
        let fixture = try Fixture()
        let (store, _) = try twoVersions(fixture)
        let child = try #require(builtExecutable(named: "package-install-child"), "build package-install-child")
        // The child records its open and pauses; the limit SIGKILLs it there, as a crash would end an app.
        let result = try await ChildProcess.run(
            child, arguments: ["trial-open", fixture.storeRoot.path, Self.id], limit: .seconds(5))
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(output.contains("OPENED 2.0.0 onTrial=true"), "\(output)")
        #expect(result.timedOut && result.signal == SIGKILL)

        let reports = Reports()
        let restarted = BootGuard(store: try fixture.openStore(), onRollback: reports.add)
        #expect(
            try restarted.willOpen(Self.id)
                == .rolledBack(
                    from: try Self.version("2.0.0"), to: try Self.version("1.0.0"), reason: .interruptedOpen))
        #expect(reports.all.count == 1)
        #expect(restarted.store.activeVersion(Self.id) == (try Self.version("1.0.0")))
        _ = store
    }
}
