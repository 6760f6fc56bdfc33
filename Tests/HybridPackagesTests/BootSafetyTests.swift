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
        // A damaged bad list reads as empty rather than crashing; a damaged trial file as no trial.
        try Data("{".utf8).write(to: fixture.storeRoot.appendingPathComponent("\(Self.id)/bad.json"))
        try Data("\u{0}".utf8).write(to: fixture.storeRoot.appendingPathComponent("\(Self.id)/trial.json"))
        #expect(store.badVersions(Self.id).isEmpty)
        #expect(try bootGuard.willOpen(Self.id) == .serve(try Self.version("1.0.0"), onTrial: false))
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
