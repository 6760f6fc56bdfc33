import Foundation
import Synchronization

/// The on-disk store of installed package versions, and the single source of truth for which version serves.
///
/// Thread safety: a scheme handler reads `snapshot()` on its thread while an updater installs on another.
/// Readers take `state` only long enough to copy a reference-counted snapshot; writers (commit, activate,
/// rollback, GC) are serialised by `writerLock` and publish a new snapshot only after the disk is updated.
public final class PackageStore: Sendable {
    public let root: URL
    /// How many activated versions to keep (the active one included) when collecting garbage.
    public let keepVersions: Int
    /// What opening the store found and fixed.
    public let repairReport: StoreRepairReport
    let layout: StoreLayout
    let trustedKey: PackageVerificationKey?
    private let clock: any PackageClock
    private let state: Mutex<State>
    private let writerLock = Mutex<Void>(())

    private struct State: Sendable {
        var snapshot: StoreSnapshot
        var pointers: [String: ActivePointer]
    }

    /// Opens (creating if needed) the store at `root` and repairs it: leftover staging directories are removed,
    /// damaged versions discarded, and pointers to damaged versions moved back to the newest intact one.
    ///
    /// - Parameters:
    ///   - root: the store's directory.
    ///   - keepVersions: how many activated versions garbage collection keeps (the active one included; at least 1).
    ///   - trustedKey: when given, every installed manifest's signature is re-checked on open.
    ///   - integrityCheck: how thoroughly installed versions are checked on open (sizes, or every file re-hashed).
    ///   - clock: the time activations are recorded with (a fixed clock in tests).
    public init(
        root: URL, keepVersions: Int = 3, trustedKey: PackageVerificationKey? = nil,
        integrityCheck: StoreIntegrityCheck = .sizes, clock: any PackageClock = SystemPackageClock()
    ) throws(PackageError) {
        self.root = root
        self.keepVersions = max(1, keepVersions)
        self.trustedKey = trustedKey
        self.clock = clock
        layout = StoreLayout(root: root)
        let opened = try StoreRepairer(
            layout: layout,
            inspector: InstalledVersionInspector(trustedKey: trustedKey, check: integrityCheck)
        ).openAndRepair()
        repairReport = opened.report
        state = Mutex(State(snapshot: StoreSnapshot(active: opened.active), pointers: opened.pointers))
    }

    // MARK: Reading (any thread, never blocks on an install)

    /// The versions that serve right now, with their routing table.
    public func snapshot() -> StoreSnapshot { state.withLock { $0.snapshot } }

    public func activePackage(_ id: String) -> InstalledPackage? { snapshot().active[id] }

    public func activeVersion(_ id: String) -> SemanticVersion? { activePackage(id)?.version }

    /// Activated versions of `id`, most recent first (the first is the active one).
    public func history(_ id: String) -> [SemanticVersion] {
        state.withLock { $0.pointers[id]?.history ?? [] }
    }

    /// Every committed version directory of `id`, lowest first.
    public func installedVersions(_ id: String) -> [SemanticVersion] {
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: layout.versionsDirectory(id).path))
            ?? []
        return names.compactMap(SemanticVersion.init).sorted()
    }

    /// Loads an installed (not necessarily active) version from disk.
    public func installedPackage(_ id: String, version: SemanticVersion) throws(PackageError)
        -> InstalledPackage
    {
        guard PackageIdentifier.isValid(id) else { throw .invalidPackageID(id) }
        let directory = layout.versionDirectory(id, version)
        guard
            let bytes = try? Data(
                contentsOf: directory.appendingPathComponent(PackageArchiveLayout.manifestPath))
        else { throw .versionNotInstalled(id: id, version: version) }
        let manifest = try PackageManifest.decode(bytes)
        guard manifest.id == id, manifest.version == version else {
            throw .versionNotInstalled(id: id, version: version)
        }
        return InstalledPackage(manifest: manifest, directory: directory)
    }

    // MARK: Changing what serves

    /// Makes an installed version the one that serves. The pointer file is replaced atomically, so after a
    /// crash either the old or the new version is active.
    public func activate(_ id: String, version: SemanticVersion) throws(PackageError) {
        try writerLock.withLock { (_: inout Void) throws(PackageError) in
            try publishActivation(of: try installedPackage(id, version: version))
        }
    }

    /// Activates a version the caller has just committed, with the manifest it verified and wrote: reading and
    /// decoding it back from disk (as the public `activate` must) would only repeat that work.
    func activate(committed package: InstalledPackage) throws(PackageError) {
        try writerLock.withLock { (_: inout Void) throws(PackageError) in
            // Another store on the same root may have removed it since the commit.
            guard FileManager.default.fileExists(atPath: package.directory.path) else {
                throw .versionNotInstalled(id: package.id, version: package.version)
            }
            try publishActivation(of: package)
        }
    }

    /// Activates a version on boot trial: the pointer that names it also lists it as unconfirmed, in the same
    /// atomic write, so after a crash either the old version serves or the new one serves on trial.
    func activate(committed package: InstalledPackage, onTrial: Bool) throws(PackageError) {
        try writerLock.withLock { (_: inout Void) throws(PackageError) in
            guard FileManager.default.fileExists(atPath: package.directory.path) else {
                throw .versionNotInstalled(id: package.id, version: package.version)
            }
            try publishActivation(of: package, onTrial: onTrial)
        }
    }

    /// Whether the active version of `id` was activated on trial and has not confirmed since.
    func activeIsUnconfirmed(_ id: String) -> Bool {
        state.withLock { state in
            guard let pointer = state.pointers[id] else { return false }
            return (pointer.unconfirmed ?? []).contains(pointer.version)
        }
    }

    /// Puts the active version of `id` on trial (when it is `version`), or takes it off (it confirmed). Returns
    /// false when another version is active. The pointer is rewritten atomically either way.
    @discardableResult
    func setUnconfirmed(_ id: String, version: SemanticVersion, _ unconfirmed: Bool) throws(PackageError) -> Bool {
        try writerLock.withLock { (_: inout Void) throws(PackageError) -> Bool in
            guard let pointer = state.withLock({ $0.pointers[id] }), pointer.version == version,
                let active = state.withLock({ $0.snapshot.active[id] })
            else { return false }
            var list = (pointer.unconfirmed ?? []).filter { $0 != version }
            if unconfirmed { list.append(version) }
            try publish(id: id, history: pointer.history, active: active, unconfirmed: list)
            return true
        }
    }

    /// Re-activates the previously active version and forgets the current one in the history,
    /// so a later garbage collection removes the version that was rolled back from.
    @discardableResult
    public func rollback(_ id: String) throws(PackageError) -> SemanticVersion {
        try writerLock.withLock { (_: inout Void) throws(PackageError) -> SemanticVersion in
            let history = state.withLock { $0.pointers[id]?.history ?? [] }
            guard !history.isEmpty else { throw .packageNotInstalled(id) }
            for (index, candidate) in history.enumerated().dropFirst() {
                guard let package = try? installedPackage(id, version: candidate) else { continue }
                // Versions between the current and the target vanished from disk; drop them too.
                let remaining = [candidate] + history.dropFirst(index + 1).filter { $0 != candidate }
                let abandoned = Array(history.prefix(index))
                try publish(id: id, history: remaining, active: package, rolledBack: abandoned)
                return candidate
            }
            throw .noPreviousVersion(id: id)
        }
    }

    /// Removes installed versions beyond the newest `keepVersions` activated ones. Versions installed but
    /// never activated are kept when they are newer than the active one (an update waiting to be switched on).
    @discardableResult
    public func collectGarbage(_ id: String) throws(PackageError) -> [SemanticVersion] {
        try writerLock.withLock { (_: inout Void) throws(PackageError) -> [SemanticVersion] in
            guard let pointer = state.withLock({ $0.pointers[id] }) else { return [] }
            let kept = Array(pointer.history.prefix(keepVersions))
            var removed: [SemanticVersion] = []
            for version in installedVersions(id) {
                let pending =
                    !pointer.history.contains(version) && version > pointer.version
                    && !(pointer.rolledBack ?? []).contains(version)
                guard !kept.contains(version), version != pointer.version, !pending else { continue }
                try removeVersionDirectory(id, version)
                removed.append(version)
            }
            if kept != pointer.history, let active = state.withLock({ $0.snapshot.active[id] }) {
                try publish(id: id, history: kept, active: active)
            }
            return removed
        }
    }

    // MARK: For the installer

    /// A fresh, uniquely named directory under `<id>/staging/` for an install to fill.
    func makeStagingDirectory(_ id: String) throws(PackageError) -> URL {
        let directory = layout.stagingDirectory(id).appendingPathComponent(
            UUID().uuidString, isDirectory: true)
        do {
            try FileManager.default.createDirectory(
                at: layout.versionsDirectory(id), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .wrapping(error, operation: "create", path: directory.path)
        }
        return directory
    }

    /// Moves a complete, synced staging directory to `versions/<version>` with one `rename`, the commit point
    /// of an install: before it the version does not exist, after it the version is whole. Returns the version
    /// as committed, with `manifest`, which the caller verified and wrote into it.
    @discardableResult
    func commit(staging: URL, manifest: PackageManifest) throws(PackageError) -> InstalledPackage {
        let id = manifest.id
        let version = manifest.version
        return try writerLock.withLock { (_: inout Void) throws(PackageError) -> InstalledPackage in
            let destination = layout.versionDirectory(id, version)
            if FileManager.default.fileExists(atPath: destination.path) {
                throw .alreadyInstalled(id: id, version: version)
            }
            guard rename(staging.path, destination.path) == 0 else {
                throw .fileSystem(
                    operation: "move into place", path: destination.path,
                    reason: String(cString: strerror(errno)))
            }
            try DurableFiles.syncDirectory(layout.versionsDirectory(id))
            return InstalledPackage(manifest: manifest, directory: destination)
        }
    }

    func discard(staging: URL) { try? FileManager.default.removeItem(at: staging) }

    // MARK: Private

    /// Puts `package` first in its history and publishes it. Called with `writerLock` held.
    private func publishActivation(of package: InstalledPackage, onTrial: Bool = false) throws(PackageError) {
        let previous = state.withLock { $0.pointers[package.id] }
        // Activating without a trial never confirms: a version that was on trial stays unconfirmed.
        var unconfirmed = previous?.unconfirmed ?? []
        if onTrial && !unconfirmed.contains(package.version) { unconfirmed.append(package.version) }
        try publish(
            id: package.id,
            history: [package.version] + (previous?.history ?? []).filter { $0 != package.version },
            active: package, unconfirmed: unconfirmed)
    }

    /// Writes the pointer durably, then publishes the new snapshot. Called with `writerLock` held.
    private func publish(
        id: String, history: [SemanticVersion], active: InstalledPackage,
        rolledBack: [SemanticVersion] = [], unconfirmed: [SemanticVersion]? = nil
    ) throws(PackageError) {
        let previousPointer = state.withLock { $0.pointers[id] }
        let previous = previousPointer?.rolledBack ?? []
        let abandoned = (previous + rolledBack).filter { !history.contains($0) }
        var pointer = ActivePointer(version: active.version, history: history, activatedAt: clock.now())
        pointer.rolledBack = abandoned.isEmpty ? nil : abandoned
        // Every rewrite (rollback, garbage collection) carries the trials over; only versions still in the history
        // can serve again, so only they are kept.
        let trials = (unconfirmed ?? previousPointer?.unconfirmed ?? []).filter { history.contains($0) }
        pointer.unconfirmed = trials.isEmpty ? nil : trials
        let bytes: Data
        do { bytes = try pointer.encoded() } catch {
            throw .fileSystem(operation: "encode", path: layout.pointerURL(id).path, reason: "\(error)")
        }
        try DurableFiles.atomicWrite(bytes, to: layout.pointerURL(id))
        let current = state.withLock { $0.snapshot.active }
        var next = current
        next[id] = active
        let snapshot = StoreSnapshot(active: next)
        state.withLock { state in
            state.pointers[id] = pointer
            state.snapshot = snapshot
        }
    }

    /// Moves a version out of `versions/` first (atomic), then deletes it, so a crash mid-delete leaves only
    /// a staging leftover that the next open removes, never a half-deleted version.
    private func removeVersionDirectory(_ id: String, _ version: SemanticVersion) throws(PackageError) {
        let source = layout.versionDirectory(id, version)
        let trash = layout.stagingDirectory(id).appendingPathComponent("trash-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(
                at: layout.stagingDirectory(id), withIntermediateDirectories: true)
        } catch {
            throw .wrapping(error, operation: "create", path: trash.path)
        }
        guard rename(source.path, trash.path) == 0 else {
            throw .fileSystem(
                operation: "remove", path: source.path, reason: String(cString: strerror(errno)))
        }
        try? FileManager.default.removeItem(at: trash)
    }
}
