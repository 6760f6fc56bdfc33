import Foundation
import Synchronization

/// Boot safety for offline packages: a newly activated version is on trial until its page confirms it booted.
/// Every open of a version on trial is recorded on disk before the page loads; an open that ends in a failure
/// (`openFailed`), or that never ended because the app died (found by the next `willOpen`), counts against it.
/// At `policy.failedOpensAllowed` failures the store rolls back to the previous version, the version is marked bad
/// (`<store>/<id>/bad.json`, with the reason), the updater never offers it again, and `onRollback` is told.
public final class BootGuard: Sendable {
    public let store: PackageStore
    public let policy: BootTrialPolicy
    private let clock: any PackageClock
    private let onRollback: (@Sendable (BootRollback) -> Void)?
    // One decision at a time per guard: an open, a confirmation and a failure must not interleave their writes.
    private let lock = Mutex<Void>(())

    public init(
        store: PackageStore, policy: BootTrialPolicy = BootTrialPolicy(),
        clock: any PackageClock = SystemPackageClock(),
        onRollback: (@Sendable (BootRollback) -> Void)? = nil
    ) {
        self.store = store
        self.policy = policy
        self.clock = clock
        self.onRollback = onRollback
    }

    /// Puts the active version of `id` on trial (the updater calls this right after activating an update).
    public func beginTrial(_ id: String) throws(PackageError) {
        try lock.withLock { (_: inout Void) throws(PackageError) in
            guard let version = store.activeVersion(id) else { throw .packageNotInstalled(id) }
            try BootTrialState(version: version, failures: [], openInProgress: false).save(store.layout, id)
        }
    }

    /// Whether the active version of `id` still has to confirm.
    public func isOnTrial(_ id: String) -> Bool {
        guard let trial = BootTrialState.load(store.layout, id) else { return false }
        return trial.version == store.activeVersion(id)
    }

    /// Call before loading a page of `id`. Counts an open left unfinished by a crash, rolls back when that was
    /// the last allowed failure, and records this open as in progress, durably, before returning.
    public func willOpen(_ id: String) throws(PackageError) -> BootDecision {
        try lock.withLock { (_: inout Void) throws(PackageError) -> BootDecision in
            guard let active = store.activeVersion(id) else { throw .packageNotInstalled(id) }
            guard var trial = BootTrialState.load(store.layout, id), trial.version == active else {
                return .serve(active, onTrial: false)
            }
            if trial.openInProgress {
                trial.failures.append(.interruptedOpen)
                trial.openInProgress = false
                if let decision = try rollBackIfExhausted(id, trial: trial) { return decision }
            }
            trial.openInProgress = true
            try trial.save(store.layout, id)
            return .serve(active, onTrial: true)
        }
    }

    /// The page confirmed it booted: the version is good and leaves trial.
    public func confirm(_ id: String) throws(PackageError) {
        try lock.withLock { (_: inout Void) throws(PackageError) in
            guard let trial = BootTrialState.load(store.layout, id), trial.version == store.activeVersion(id)
            else { return }
            try BootTrialState.clear(store.layout, id)
        }
    }

    /// The page of an open on trial was closed before it confirmed or failed: neither a boot nor a failure, so
    /// the next open does not count it as one the app died in.
    public func openEnded(_ id: String) throws(PackageError) {
        try lock.withLock { (_: inout Void) throws(PackageError) in
            guard var trial = BootTrialState.load(store.layout, id), trial.version == store.activeVersion(id),
                trial.openInProgress
            else { return }
            trial.openInProgress = false
            try trial.save(store.layout, id)
        }
    }

    /// The open failed (process killed, blank page, deadline missed). Rolls back at the last allowed failure.
    @discardableResult
    public func openFailed(_ id: String, reason: BootFailure) throws(PackageError) -> BootDecision {
        try lock.withLock { (_: inout Void) throws(PackageError) -> BootDecision in
            guard let active = store.activeVersion(id) else { throw .packageNotInstalled(id) }
            guard var trial = BootTrialState.load(store.layout, id), trial.version == active else {
                return .serve(active, onTrial: false)
            }
            trial.failures.append(reason)
            trial.openInProgress = false
            if let decision = try rollBackIfExhausted(id, trial: trial) { return decision }
            try trial.save(store.layout, id)
            return .serve(active, onTrial: true)
        }
    }

    /// Versions of `id` rolled back by boot safety, oldest first.
    public func badVersions(_ id: String) -> [BadVersion] { store.badVersions(id) }

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
        try BootTrialState.clear(store.layout, id)
        let rollback = BootRollback(id: id, from: trial.version, to: previous, reason: reason)
        onRollback?(rollback)
        return .rolledBack(from: trial.version, to: previous, reason: reason)
    }
}

extension PackageStore {
    /// Versions of `id` that boot safety rolled back; the updater never installs or activates them again.
    public func badVersions(_ id: String) -> [BadVersion] { BootTrialState.badVersions(layout, id) }
}
