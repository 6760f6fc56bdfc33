import Foundation

/// Checks for, downloads, installs and activates updates: the client half of offline packages.
///
/// Prefers a diff against the active version when the source offers one and falls back to the full package
/// when the diff cannot be applied (for example the installed base differs), so an update never strands the app.
public struct PackageUpdater: Sendable {
    public let installer: PackageInstaller
    public let downloader: PackageDownloader
    /// When set, every version this updater activates starts on trial (see `BootGuard`).
    public var bootGuard: BootGuard?

    public init(installer: PackageInstaller, client: any UpdateClient, chunkSize: Int64 = 1 << 20) {
        self.installer = installer
        downloader = PackageDownloader(
            client: client, directory: installer.store.layout.downloadsDirectory, chunkSize: chunkSize)
    }

    public init(installer: PackageInstaller, downloader: PackageDownloader) {
        self.installer = installer
        self.downloader = downloader
    }

    /// The release newer than the active version, or nil when up to date. A version boot safety rolled back on
    /// this install is never offered again.
    public func checkForUpdate(_ id: String) async throws -> PackageRelease? {
        guard let release = try await downloader.client.latestRelease(for: id) else { return nil }
        if let active = installer.store.activeVersion(id), release.version <= active { return nil }
        if installer.store.badVersions(id).contains(where: { $0.version == release.version }) { return nil }
        return release
    }

    public func update(_ id: String, progress: PackageProgressHandler? = nil) async throws
        -> UpdateOutcome
    {
        try await install(id, progress: progress)
    }

    /// Makes `version` serve: with a boot guard, on trial in one durable step (never "activated, trial to follow",
    /// which a crash or a failed write between the two would leave active and off trial for good).
    private func activate(_ id: String, _ version: SemanticVersion) throws(PackageError) {
        if let bootGuard {
            try bootGuard.activateOnTrial(id, version: version)
        } else {
            try installer.store.activate(id, version: version)
        }
    }

    /// Installs the package at `file`; with a boot guard the installer only commits it and the guard activates it.
    private func installAndActivate(_ file: URL, progress: PackageProgressHandler?) throws(PackageError) {
        guard let bootGuard else {
            try installer.install(packageAt: file, progress: progress)
            return
        }
        let installed = try installer.install(packageAt: file, activate: false, progress: progress)
        try bootGuard.activateOnTrial(installed)
        try installer.store.collectGarbage(installed.id)
    }

    private func install(_ id: String, progress: PackageProgressHandler?) async throws -> UpdateOutcome {
        let store = installer.store
        let active = store.activeVersion(id)
        guard let release = try await checkForUpdate(id) else { return .upToDate(active) }
        if store.installedVersions(id).contains(release.version) {
            try activate(id, release.version)
            return .updated(from: active, to: release.version, viaDiff: false)
        }
        if let active, let delta = release.deltaDiff(from: active) {
            do {
                let file = try await downloader.download(delta, progress: progress)
                defer { try? FileManager.default.removeItem(at: file) }
                try installAndActivate(file, progress: progress)
                return .updated(from: active, to: release.version, viaDiff: true)
            } catch let error where Self.fullPackageMayStillWork(afterDeltaFailure: error) {
                // Fall through to the full package: nothing of the delta diff was activated.
            }
        } else if let active, let diff = release.diff(from: active) {
            do {
                let file = try await downloader.download(diff, progress: progress)
                defer { try? FileManager.default.removeItem(at: file) }
                try installAndActivate(file, progress: progress)
                return .updated(from: active, to: release.version, viaDiff: true)
            } catch PackageError.diffBaseMismatch, PackageError.diffBaseNotInstalled {
                // Fall through to the full package.
            }
        }
        let file = try await downloader.download(release.full, progress: progress)
        defer { try? FileManager.default.removeItem(at: file) }
        try installAndActivate(file, progress: progress)
        return .updated(from: active, to: release.version, viaDiff: false)
    }

    /// Whether a failed delta diff should be followed by the full package: any fault of the delta diff itself
    /// (damaged, hostile, made from another base, unreadable by this app, refused by its download's checksum).
    /// Not a full disk, a failing file system or a too-old container, which the full package would meet too.
    static func fullPackageMayStillWork(afterDeltaFailure error: any Error) -> Bool {
        if let download = error as? DownloadError {
            if case .checksumMismatch = download { return true }
            if case .protocolViolation = download { return true }
            return false
        }
        guard let package = error as? PackageError else { return false }
        switch package {
        case .diskFull, .fileSystem, .containerTooOld, .alreadyInstalled, .untrustedSigningKey:
            return false
        default:
            return true
        }
    }
}
