import Foundation
import Synchronization

/// A directory served as a package while the app is being written (`hybrid run <dir>`): unsigned, read in
/// place, re-read when its files change.
///
/// It is marked as what it is: version `0.0.0-development` and a manifest with ``PackageManifest/development``
/// set, which ``PackageManifest/validate()`` refuses, so no installer, store or verifier accepts it even if
/// someone signs it. It is a ``PackageSnapshotSource``: a ``PackageResolver`` (and so the package scheme
/// handler) serves it exactly as it serves an installed version, misses from the network included.
///
/// Hidden files and directories (`.git`, `.DS_Store`) are left out, as are paths a package could not hold and
/// symbolic links that point outside the directory; ``skipped`` says which and why.
public final class DevelopmentPackage: PackageSnapshotSource {
    public static let version = SemanticVersion(major: 0, minor: 0, patch: 0, prerelease: ["development"])

    /// Bounds on what is read: a directory beyond them is most likely not a build output.
    public struct Limits: Sendable {
        public var maxFiles: Int
        public var maxBytes: Int64

        public init(maxFiles: Int = 10_000, maxBytes: Int64 = 512 << 20) {
            self.maxFiles = maxFiles
            self.maxBytes = maxBytes
        }
    }

    /// The directory, symbolic links resolved.
    public let directory: URL
    public let id: String
    public let serves: [String]
    public let entry: String
    public let limits: Limits
    private let state: Mutex<State>

    private struct State: Sendable {
        var scan: Scan
        var snapshot: StoreSnapshot
    }

    /// What one walk of the directory found.
    struct Scan: Sendable {
        /// Per file: the stat fields that change when its bytes do, and its hash.
        var files: [String: (stamp: FileStamp, sha256: String)] = [:]
        var skipped: [String] = []
        var stamps: [String: FileStamp] { files.mapValues(\.stamp) }
    }

    /// Size, modification time and inode: a write, a truncation and an editor's replace-by-rename all change it.
    struct FileStamp: Sendable, Equatable {
        let size: Int64
        let modifiedSeconds: Int
        let modifiedNanoseconds: Int
        let inode: UInt64
    }

    /// - Parameters:
    ///   - directory: the app's files, served in place.
    ///   - serves: the URL prefixes it answers for, as a release's manifest would say.
    ///   - entry: the page opened first; it must exist.
    ///   - id: the package id it is served under.
    ///   - limits: how many files and bytes the directory may hold.
    public init(
        directory: URL, serves: [String], entry: String = "index.html", id: String = "development",
        limits: Limits = Limits()
    ) throws(DevelopmentPackageError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw .notFound(path: directory.path)
        }
        guard isDirectory.boolValue else { throw .notADirectory(path: directory.path) }
        for prefix in serves where URLPrefix(prefix) == nil { throw .invalidPrefix(prefix) }
        guard !serves.isEmpty else { throw .invalidPrefix("") }
        guard PackageIdentifier.isValid(id) else { throw .invalidManifest("'\(id)' is not a valid package id") }
        let root = directory.standardizedFileURL.resolvingSymlinksInPath()
        let scan = try Self.scan(root, limits: limits, previous: Scan())
        let snapshot = try Self.snapshot(of: scan, directory: root, id: id, serves: serves, entry: entry)
        self.directory = root
        self.id = id
        self.serves = serves
        self.entry = entry
        self.limits = limits
        state = Mutex(State(scan: scan, snapshot: snapshot))
    }

    public func snapshot() -> StoreSnapshot { state.withLock { $0.snapshot } }

    /// The manifest of what serves now (never installable: see the type's description).
    public var manifest: PackageManifest? { snapshot().active[id]?.manifest }

    /// Paths left out, each with the reason.
    public var skipped: [String] { state.withLock { $0.scan.skipped } }

    /// Whether a file was added, removed or changed since the last read. Stats every file, reads none.
    public func hasChanged() -> Bool {
        let known = state.withLock { $0.scan.stamps }
        return Self.stamps(of: directory) != known
    }

    /// Reads the directory again if it changed, and serves what it holds now; true when it changed. Files whose
    /// stamp is unchanged are not hashed again. On an error (the entry page removed, say) the previous
    /// contents keep serving.
    @discardableResult
    public func refresh() throws(DevelopmentPackageError) -> Bool {
        let previous = state.withLock { $0.scan }
        let scan = try Self.scan(directory, limits: limits, previous: previous)
        guard scan.stamps != previous.stamps else { return false }
        let snapshot = try Self.snapshot(of: scan, directory: directory, id: id, serves: serves, entry: entry)
        state.withLock { $0 = State(scan: scan, snapshot: snapshot) }
        return true
    }

    // MARK: Reading the directory

    private static func snapshot(
        of scan: Scan, directory: URL, id: String, serves: [String], entry: String
    ) throws(DevelopmentPackageError) -> StoreSnapshot {
        guard scan.files[entry] != nil else { throw .noEntryPage(directory: directory.path, entry: entry) }
        let files = scan.files.map { path, file in
            ManifestFileEntry(
                path: path, size: file.stamp.size, sha256: file.sha256, mimeType: MIMETypes.type(forPath: path))
        }
        var manifest = PackageManifest(
            id: id, version: version, minimumContainerVersion: SemanticVersion(major: 0, minor: 0, patch: 0),
            serves: serves, entry: entry, files: files)
        manifest.development = true
        do { try manifest.validateContents() } catch { throw .invalidManifest("\(error)") }
        let package = InstalledPackage(manifest: manifest, directory: directory, contentDirectory: directory)
        return StoreSnapshot(active: [id: package])
    }

    /// Every file's stamp, by package path; what ``scan(_:limits:previous:)`` would serve, without hashing.
    private static func stamps(of directory: URL) -> [String: FileStamp] {
        var stamps: [String: FileStamp] = [:]
        walk(directory) { path, url in
            if let stamp = Self.stamp(of: url) { stamps[path] = stamp }
            return true
        } skip: { _ in
        }
        return stamps
    }

    private static func scan(_ directory: URL, limits: Limits, previous: Scan) throws(DevelopmentPackageError)
        -> Scan
    {
        var scan = Scan()
        var total: Int64 = 0
        var failure: DevelopmentPackageError?
        walk(directory) { path, url in
            guard let stamp = Self.stamp(of: url) else { return true }  // Gone since it was listed.
            guard scan.files.count < limits.maxFiles else {
                failure = .tooManyFiles(directory: directory.path, limit: limits.maxFiles)
                return false
            }
            total += stamp.size
            guard total <= limits.maxBytes else {
                failure = .tooLarge(directory: directory.path, limit: limits.maxBytes)
                return false
            }
            if let known = previous.files[path], known.stamp == stamp {
                scan.files[path] = known
                return true
            }
            do {
                let digest = try FileHashing.sha256(of: url)
                // Written while it was hashed: take the size that was hashed; the next refresh sees the change.
                let hashed = FileStamp(
                    size: digest.size, modifiedSeconds: stamp.modifiedSeconds,
                    modifiedNanoseconds: stamp.modifiedNanoseconds, inode: stamp.inode)
                scan.files[path] = (hashed, digest.hex)
            } catch {
                failure = .unreadable(path: url.path, reason: "\(error)")
                return false
            }
            return true
        } skip: { note in
            scan.skipped.append(note)
        }
        if let failure { throw failure }
        return scan
    }

    /// Calls `visit` with each file that may be served (its package path and its URL) until it returns false;
    /// `skip` with each path left out and why.
    private static func walk(
        _ directory: URL, visit: (String, URL) -> Bool, skip: (String) -> Void
    ) {
        let root = directory.path.hasSuffix("/") ? directory.path : directory.path + "/"
        let keys: Set<URLResourceKey> = [.isDirectoryKey, .isSymbolicLinkKey, .isRegularFileKey]
        guard
            let enumerator = FileManager.default.enumerator(
                at: directory, includingPropertiesForKeys: Array(keys), options: [.skipsHiddenFiles])
        else { return }
        for case let url as URL in enumerator {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(root) else { continue }
            let relative = String(path.dropFirst(root.count))
            guard let values = try? url.resourceValues(forKeys: keys), values.isDirectory != true else { continue }
            if values.isSymbolicLink == true {
                // Followed only when it stays inside: the page could otherwise read any file the user can.
                let target = url.resolvingSymlinksInPath().path
                guard target.hasPrefix(root) else {
                    skip("\(relative): a symbolic link to \(target), outside the directory")
                    continue
                }
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory),
                    !isDirectory.boolValue
                else { continue }
            } else if values.isRegularFile != true {
                skip("\(relative): not a regular file")
                continue
            }
            do { _ = try PackagePath(validating: relative) } catch {
                skip("\(relative): \(error)")
                continue
            }
            guard visit(relative, url) else { return }
        }
    }

    private static func stamp(of url: URL) -> FileStamp? {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        #if os(Linux)
        let modified = info.st_mtim
        #else
        let modified = info.st_mtimespec
        #endif
        return FileStamp(
            size: Int64(info.st_size), modifiedSeconds: Int(modified.tv_sec),
            modifiedNanoseconds: Int(modified.tv_nsec), inode: UInt64(info.st_ino))
    }
}
