#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Synchronization
import Testing

/// Boot safety in real WebKitGTK: a newly activated package version is on trial until its page calls
/// `hybridPackages.ready()`. A version whose page never confirms, whose web process dies on load or which renders
/// blank is rolled back by the configured rule, marked bad with the reason, and the previous version serves the
/// next load; a version that confirms stays.
@Suite(.serialized, .timeLimit(.minutes(3))) struct BootSafetyGTKTests {
    static let id = "shop"
    static let site = "https://shop.example/"
    static let good = "<!doctype html><title>v1</title><p>v1<script>hybridPackages.ready()</script>"

    /// A store with v1 (good, confirmed) active and `page` installed as v2, on trial.
    final class Release: Sendable {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("boot-\(UUID().uuidString)")
        let store: PackageStore
        let trials: BootGuard
        let heard = RollbackLog()

        /// - Parameters:
        ///   - v2Files: more files of v2 beside its `index.html`.
        ///   - onTrial: false to leave v2 installed but not activated (the test activates it while v1 shows).
        init(
            v1: String = BootSafetyGTKTests.good, v2 page: String, v2Files: [String: String] = [:],
            deadline: Duration, onTrial: Bool = true
        ) throws {
            let keys = PackageKeyPair.generate()
            store = try PackageStore(root: root.appendingPathComponent("store"), trustedKey: keys.verificationKey)
            let host = SemanticVersion(major: 1, minor: 0, patch: 0)
            let installer = PackageInstaller(store: store, trustedKey: keys.verificationKey, containerVersion: host)
            for (minor, files) in [(1, ["index.html": v1]), (2, v2Files.merging(["index.html": page]) { $1 })] {
                let site = root.appendingPathComponent("v\(minor)")
                try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
                for (name, html) in files { try Data(html.utf8).write(to: site.appendingPathComponent(name)) }
                let zip = root.appendingPathComponent("v\(minor).zip")
                try PackagePacker().pack(
                    directory: site,
                    options: PackOptions(
                        id: BootSafetyGTKTests.id, version: SemanticVersion(major: 1, minor: minor, patch: 0),
                        serves: [BootSafetyGTKTests.site]),
                    keyPair: keys, to: zip)
                try installer.install(packageAt: zip, activate: minor == 1 || onTrial)
            }
            let heard = self.heard
            trials = BootGuard(
                store: store, policy: BootTrialPolicy(failedOpensAllowed: 1, deadline: deadline),
                onRollback: { rollback in heard.list.withLock { $0.append(rollback) } })
            if onTrial { try trials.beginTrial(BootSafetyGTKTests.id) }
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        var active: SemanticVersion? { store.activeVersion(BootSafetyGTKTests.id) }
        var bad: [BadVersion] { store.badVersions(BootSafetyGTKTests.id) }

        /// A container serving the store with boot safety; `modules` are the page's extra native modules.
        @GTKActor func open(modules: [BridgeModule] = []) throws -> HybridContainer {
            let container = try HybridContainer(
                configuration: ContainerConfiguration(
                    modules: modules,
                    features: [
                        PackageServing(store: store, route: try OfflineRoute(prefixes: [BootSafetyGTKTests.site])),
                        BootSafety(trials, packageID: BootSafetyGTKTests.id),
                    ]),
                factory: GTKEngineFactory())
            try container.load(try #require(URL(string: "hybrid://shop.example/")))
            return container
        }
    }

    /// What the host's rollback callback heard.
    final class RollbackLog: Sendable {
        let list = Mutex<[BootRollback]>([])
    }

    @GTKActor func expectTitle(_ title: String, in container: HybridContainer) async throws {
        try await waitUntil(timeout: .seconds(20)) {
            (try? await container.engine.evaluateJavaScript("document.title")) == "\"\(title)\""
        }
    }

    /// After a rollback to v1 for `reason`: v2 is marked bad, the host heard it, and a new page shows v1.
    @GTKActor func expectRolledBack(_ release: Release, reason: BootFailure) async throws {
        // The store moves first and the callback follows on the thread that failed the open.
        try await waitUntil(timeout: .seconds(20)) {
            release.active?.minor == 1 && !release.heard.list.withLock { $0 }.isEmpty
        }
        #expect(release.bad.map(\.version.minor) == [2])
        #expect(release.bad.first?.reason == reason)
        #expect(release.heard.list.withLock { $0 }.map(\.reason) == [reason])
        #expect(!release.trials.isOnTrial(Self.id))
        let next = try release.open()
        defer { next.close() }
        try await expectTitle("v1", in: next)
    }

    @Test @GTKActor func aPageThatNeverConfirmsIsRolledBackAtTheDeadline() async throws {
        try GTKRuntime.shared.start(.headless)
        let release = try Release(v2: "<!doctype html><title>v2</title><p>v2, never ready", deadline: .seconds(1))
        let page = try release.open()
        defer { page.close() }
        try await expectTitle("v2", in: page)
        try await expectRolledBack(release, reason: .notConfirmed)
    }

    @Test @GTKActor func aPageWhoseWebProcessDiesOnLoadIsRolledBackAndRecoveredOnTheGoodVersion() async throws {
        try GTKRuntime.shared.start(.headless)
        let release = try Release(
            v2: "<!doctype html><title>v2</title><p>v2<script>hybrid.call('crash', 'now')</script>",
            deadline: .seconds(30))
        // The page asks native to end its web process, as a page that crashes it would.
        let engine = Mutex<(any WebEngine)?>(nil)
        let crash = BridgeModule("crash", access: .anyPage) { module in
            module.method("now") { (_: NoArguments, _) in
                // A synchronous method runs on the engine's actor.
                EngineActor.assumeIsolated { engine.withLock { $0 }?.terminateWebProcess() }
                return NoArguments()
            }
        }
        let page = try release.open(modules: [crash])
        defer { page.close() }
        engine.withLock { $0 = page.engine }
        try await expectRolledBack(release, reason: .webProcessTerminated)
        // Recovery reloaded the same page, which the good version now serves.
        try await expectTitle("v1", in: page)
    }

    @Test @GTKActor func aPageThatRendersBlankIsRolledBack() async throws {
        try GTKRuntime.shared.start(.headless)
        let release = try Release(
            v2: "<!doctype html><title>v2</title><p>v2<script>"
                + "addEventListener('load', () => setTimeout(() => { document.body.replaceChildren() }, 100))</script>",
            deadline: .seconds(30))
        let page = try release.open()
        defer { page.close() }
        try await expectTitle("v2", in: page)
        var why: String?
        try await waitUntil(timeout: .seconds(10)) {
            why = await page.checkForBlankPage()
            return why != nil
        }
        try await expectRolledBack(release, reason: .blankPage)
    }

    @Test @GTKActor func aPageThatConfirmsStays() async throws {
        try GTKRuntime.shared.start(.headless)
        let release = try Release(
            v2:
                "<!doctype html><title>v2</title><p>v2<script>hybridPackages.ready().then(() => { window.ok = 1 })</script>",
            deadline: .seconds(2))
        let page = try release.open()
        defer { page.close() }
        try await waitUntil(timeout: .seconds(20)) {
            (try? await page.engine.evaluateJavaScript("window.ok")) == "1"
        }
        #expect(!release.trials.isOnTrial(Self.id))
        // Past the deadline nothing changes: the version is good.
        try await Task.sleep(for: .seconds(3))
        #expect(release.active?.minor == 2)
        #expect(release.bad.isEmpty)
        #expect(release.heard.list.withLock { $0 }.isEmpty)
    }

    /// Only the page's main frame may confirm: a frame of the page cannot vouch for it.
    @Test @GTKActor func aFrameCannotConfirm() async throws {
        try GTKRuntime.shared.start(.headless)
        let release = try Release(
            v2: "<!doctype html><title>v2</title><p>v2<iframe srcdoc=\"<script>window.hybrid.call('packages', "
                + "'ready').then(() => { parent.frameTried = 'confirmed' }, e => { parent.frameTried = e.code })"
                + "</script>\"></iframe>",
            deadline: .seconds(2))
        let page = try release.open()
        defer { page.close() }
        try await expectTitle("v2", in: page)
        try await waitUntil(timeout: .seconds(10)) {
            (try? await page.engine.evaluateJavaScript("window.frameTried ?? null")) != "null"
        }
        #expect(try await page.engine.evaluateJavaScript("window.frameTried") == "\"denied\"")
        try await expectRolledBack(release, reason: .notConfirmed)
    }

    /// A page that reloads itself, or navigates between its pages, never ends its open: the deadline counts from
    /// the first open and rolls the version back.
    @Test(arguments: ["reload", "navigate"])
    @GTKActor func aPageThatReloadsOrNavigatesInALoopIsRolledBackAtTheDeadline(loop: String) async throws {
        try GTKRuntime.shared.start(.headless)
        let next = loop == "reload" ? "location.reload()" : "location.href = 'other.html'"
        let release = try Release(
            v2: "<!doctype html><title>v2</title><p>v2, never ready<script>setTimeout(() => { \(next) }, 50)</script>",
            v2Files: [
                "other.html": "<!doctype html><title>v2</title><p>v2 too<script>"
                    + "setTimeout(() => { location.href = 'index.html' }, 50)</script>"
            ],
            deadline: .seconds(2))
        let page = try release.open()
        defer { page.close() }
        try await expectTitle("v2", in: page)
        try await expectRolledBack(release, reason: .notConfirmed)
    }

    /// The previous version's document keeps calling `ready()` (on a timer and on `pagehide`) while the new
    /// version loads: only a document of the version on trial, committed after the open started, may confirm.
    @Test @GTKActor func thePreviousVersionsDocumentCannotConfirmTheNext() async throws {
        try GTKRuntime.shared.start(.headless)
        let release = try Release(
            v1: "<!doctype html><title>v1</title><p>v1<script>hybridPackages.ready();"
                + "setInterval(() => { hybridPackages.ready().catch(() => {}) }, 1);"
                + "addEventListener('pagehide', () => { hybridPackages.ready().catch(() => {}) })</script>",
            v2: "<!doctype html><title>v2</title><p>v2, never ready",
            deadline: .seconds(2), onTrial: false)
        let page = try release.open()
        defer { page.close() }
        try await expectTitle("v1", in: page)
        // The update lands while v1's document is on screen, then the page loads again.
        try release.store.activate(Self.id, version: SemanticVersion(major: 1, minor: 2, patch: 0))
        try release.trials.beginTrial(Self.id)
        try await Task.sleep(for: .milliseconds(200))
        #expect(release.trials.isOnTrial(Self.id), "v1's timer confirmed v2 before v2 ever loaded")
        page.engine.reload()
        try await expectTitle("v2", in: page)
        try await expectRolledBack(release, reason: .notConfirmed)
    }
}
#endif
