import Foundation
import Logging
import Synchronization

/// Boot safety for offline packages: a newly activated version is on trial until its page confirms it booted.
/// "Active, on trial" is one durable step: the trial record is written and synced first, then the store's pointer
/// names the version and lists it as unconfirmed in the same atomic rename, so no crash leaves a new version serving
/// off trial, and a version on trial whose record is missing or damaged gets a fresh one (never counts as confirmed).
/// Every open of a version on trial is recorded on disk before the page loads; an open that ends in a failure
/// (`openFailed`), that never ended because the app died (found by the next `willOpen`), or whose attempt is past
/// the deadline (counted from the attempt's first open, across reloads and restarts) counts against it.
/// At `policy.failedOpensAllowed` failures the store rolls back to the previous version, the version is marked bad
/// (`<store>/<id>/bad.json`, with the reason), the updater never offers it again, and `onRollback` is told.
public final class BootGuard: Sendable {
    public let store: PackageStore
    public let policy: BootTrialPolicy
    private let clock: any PackageClock
    private let onRollback: (@Sendable (BootRollback) -> Void)?
    private let hook: (@Sendable (BootStep) -> Void)?
    // One decision at a time per guard: an open, a confirmation and a failure must not interleave their writes.
    private let lock = Mutex<Void>(())

    /// - Parameters:
    ///   - store: the package store whose versions this guard activates, confirms and rolls back.
    ///   - policy: how long a version on trial has to confirm, and how many failed opens it is allowed.
    ///   - clock: the time trials are measured in (a fixed clock in tests).
    ///   - onRollback: told of every rollback, with its reason (to report it).
    ///   - hook: told between the steps of an activation on trial (crash tests stop there).
    public init(
        store: PackageStore, policy: BootTrialPolicy = BootTrialPolicy(),
        clock: any PackageClock = SystemPackageClock(),
        onRollback: (@Sendable (BootRollback) -> Void)? = nil,
        hook: (@Sendable (BootStep) -> Void)? = nil
    ) {
        self.store = store
        self.policy = policy
        self.clock = clock
        self.onRollback = onRollback
        self.hook = hook
    }

    /// Makes the installed `version` of `id` the one that serves, on trial, in one durable step (what the updater
    /// does with every version it activates).
    public func activateOnTrial(_ id: String, version: SemanticVersion) throws(PackageError) {
        try activateOnTrial(try store.installedPackage(id, version: version))
    }

    /// The same, for a version the caller has just committed.
    func activateOnTrial(_ package: InstalledPackage) throws(PackageError) {
        try lock.withLock { (_: inout Void) throws(PackageError) in
            // The record first: were the pointer renamed first, a crash or a failed write in between would leave
            // the version serving with no record of its trial.
            do throws(PackageError) { try BootTrialState.fresh(package.version).save(store.layout, package.id) } catch {
                Self.logger.error(
                    "update not activated: its boot trial could not be recorded; make the store writable",
                    metadata: ["id": "\(package.id)", "version": "\(package.version)", "error": "\(error)"])
                throw error
            }
            hook?(.trialRecorded)
            try store.activate(committed: package, onTrial: true)
            hook?(.activated)
        }
    }

    /// Puts the active version of `id` on trial (for a version activated some other way).
    public func beginTrial(_ id: String) throws(PackageError) {
        try lock.withLock { (_: inout Void) throws(PackageError) in
            guard let version = store.activeVersion(id) else { throw .packageNotInstalled(id) }
            try BootTrialState.fresh(version).save(store.layout, id)
            try store.setUnconfirmed(id, version: version, true)
        }
    }

    /// Whether the active version of `id` still has to confirm.
    public func isOnTrial(_ id: String) -> Bool { store.activeIsUnconfirmed(id) }

    /// How long the current attempt of the version on trial has left to confirm, or nil when none is on trial.
    public func timeLeft(_ id: String) -> Duration? {
        lock.withLock { _ -> Duration? in
            guard let active = store.activeVersion(id), store.activeIsUnconfirmed(id) else { return nil }
            guard let openedAt = record(id, active).openedAt else { return policy.deadline }
            let elapsed = clock.now().timeIntervalSince(openedAt)
            return max(.zero, policy.deadline - .milliseconds(Int64((max(0, elapsed) * 1000).rounded())))
        }
    }

    /// Call before loading a page of `id`. Counts an open left unfinished by a crash and an attempt past its
    /// deadline, rolls back when that was the last allowed failure, and records this open as in progress, durably,
    /// before returning.
    public func willOpen(_ id: String) throws(PackageError) -> BootDecision {
        try lock.withLock { (_: inout Void) throws(PackageError) -> BootDecision in
            guard let active = store.activeVersion(id) else { throw .packageNotInstalled(id) }
            guard store.activeIsUnconfirmed(id) else { return .serve(active, onTrial: false) }
            var trial = record(id, active)
            if trial.openInProgress {
                trial.failures.append(.interruptedOpen)
                trial.openInProgress = false
                trial.openedAt = nil
                if let decision = try rollBackIfExhausted(id, trial: trial) { return decision }
            }
            if let openedAt = trial.openedAt, clock.now() >= openedAt.addingTimeInterval(policy.deadlineSeconds) {
                // The attempt ran out while no page watched it (closed, or the app was not running).
                trial.failures.append(.notConfirmed)
                trial.openedAt = nil
                if let decision = try rollBackIfExhausted(id, trial: trial) { return decision }
            }
            if trial.openedAt == nil { trial.openedAt = clock.now() }
            trial.openInProgress = true
            return try save(id, trial) ?? .serve(active, onTrial: true)
        }
    }

    /// The page confirmed it booted: the active version is good and leaves trial.
    public func confirm(_ id: String) throws(PackageError) {
        guard let active = store.activeVersion(id) else { return }
        try confirm(id, version: active)
    }

    /// A document of `version` confirmed it booted: when `version` is still the one on trial, it leaves trial.
    public func confirm(_ id: String, version: SemanticVersion) throws(PackageError) {
        try lock.withLock { (_: inout Void) throws(PackageError) in
            guard store.activeVersion(id) == version, store.activeIsUnconfirmed(id) else { return }
            // The pointer is what counts; the record only helps while on trial.
            try store.setUnconfirmed(id, version: version, false)
            try BootTrialState.clear(store.layout, id)
        }
    }

    /// The page of an open on trial was closed before it confirmed or failed: neither a boot nor a failure, so
    /// the next open does not count it as one the app died in. The attempt's clock runs on.
    public func openEnded(_ id: String) throws(PackageError) {
        try lock.withLock { (_: inout Void) throws(PackageError) in
            guard let active = store.activeVersion(id), store.activeIsUnconfirmed(id) else { return }
            var trial = record(id, active)
            guard trial.openInProgress else { return }
            trial.openInProgress = false
            _ = try save(id, trial)
        }
    }

    /// The open failed (process killed, blank page, deadline missed). Rolls back at the last allowed failure.
    @discardableResult
    public func openFailed(_ id: String, reason: BootFailure) throws(PackageError) -> BootDecision {
        try lock.withLock { (_: inout Void) throws(PackageError) -> BootDecision in
            guard let active = store.activeVersion(id) else { throw .packageNotInstalled(id) }
            guard store.activeIsUnconfirmed(id) else { return .serve(active, onTrial: false) }
            var trial = record(id, active)
            trial.failures.append(reason)
            trial.openInProgress = false
            trial.openedAt = nil
            if let decision = try rollBackIfExhausted(id, trial: trial) { return decision }
            return try save(id, trial) ?? .serve(active, onTrial: true)
        }
    }

    /// Versions of `id` rolled back by boot safety, oldest first.
    public func badVersions(_ id: String) -> [BadVersion] { store.badVersions(id) }

    private static let logger = Logger(label: "hybrid.packages")

    /// The trial record of the active `version`: a missing, damaged or stale one (the store's pointer says the
    /// version is on trial) starts fresh, since a version on trial must never read as confirmed.
    private func record(_ id: String, _ version: SemanticVersion) -> BootTrialState {
        if let trial = BootTrialState.load(store.layout, id), trial.version == version { return trial }
        return .fresh(version)
    }

    /// Saves the record; when it cannot be written, rolls back (returning the decision) rather than serve a version
    /// whose failures could no longer be counted.
    private func save(_ id: String, _ trial: BootTrialState) throws(PackageError) -> BootDecision? {
        do throws(PackageError) {
            try trial.save(store.layout, id)
            return nil
        } catch {
            Self.logger.error(
                "boot trial could not be recorded; rolling the version back. Make the store writable",
                metadata: ["id": "\(id)", "version": "\(trial.version)", "error": "\(error)"])
            var lost = trial
            lost.failures = Array(repeating: .trialNotRecorded, count: policy.failedOpensAllowed)
            guard let decision = try rollBackIfExhausted(id, trial: lost) else { throw error }
            return decision
        }
    }

    private func rollBackIfExhausted(_ id: String, trial: BootTrialState) throws(PackageError) -> BootDecision? {
        guard trial.failures.count >= policy.failedOpensAllowed, let reason = trial.failures.last else { return nil }
        // Marked bad before the pointer moves: a crash in between still never re-offers the version, and the next
        // open finds the trial and finishes the rollback.
        var bad = BootTrialState.badVersions(store.layout, id)
        if !bad.contains(where: { $0.version == trial.version }) {
            bad.append(BadVersion(version: trial.version, reason: reason, markedAt: clock.now()))
            try BootTrialState.saveBadVersions(bad, store.layout, id)
        }
        let previous = try store.rollback(id)
        // The record belonged to the version rolled back from; the one now serving starts afresh if on trial.
        try? BootTrialState.clear(store.layout, id)
        let rollback = BootRollback(id: id, from: trial.version, to: previous, reason: reason)
        onRollback?(rollback)
        return .rolledBack(from: trial.version, to: previous, reason: reason)
    }
}

/// The steps of an activation on trial, in order (see ``BootGuard/init(store:policy:clock:onRollback:hook:)``).
public enum BootStep: Sendable, Equatable {
    /// The trial record for the new version is on disk; the old version still serves.
    case trialRecorded
    /// The pointer names the new version, on trial.
    case activated
}

extension BootTrialPolicy {
    var deadlineSeconds: TimeInterval {
        let parts = deadline.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}

extension PackageStore {
    /// Versions of `id` that boot safety rolled back; the updater never installs or activates them again.
    public func badVersions(_ id: String) -> [BadVersion] { BootTrialState.badVersions(layout, id) }
}
