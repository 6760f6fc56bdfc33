import Foundation
import HybridPackages
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `.zip` files of one directory, read on each request so packages dropped in (or removed) show up at once.
///
/// Reading a manifest and hashing a file is the expensive part, so results are cached per name under a
/// `FileStamp`; an unchanged directory costs one listing and an `lstat` per file. Size and modification time
/// alone are not enough: a file replaced by another of the same size with its time copied over (`cp -p`,
/// `rsync -t`, `touch -r`, an unpacked archive) would keep the old ETag and hash while the new bytes are served.
/// The stamp also holds the device and inode (a file renamed into place is a new inode) and the status-change
/// time, which the kernel sets on every write, rename and `utimes` and which no one can set back.
///
/// Timestamps are only as fine as the filesystem's clock (a kernel tick, or whole seconds on some
/// filesystems), so a file changed in the same tick as it was inspected could look unchanged. As with git's
/// "racily clean" index entries, a result is trusted only once the file's change time is `settleTime` older
/// than the moment inspection began; until then it is re-inspected on every request.
public actor PackageCatalog {
    public let directory: URL
    private let inspector: PackageInspector
    private let logger: Logger
    private var cache: [String: Cached] = [:]

    /// How long after its last change a file's cached inspection can be trusted.
    static let settleTime: Double = 2

    struct Cached {
        let stamp: FileStamp
        let entry: CatalogEntry?
        /// The file had not changed for `settleTime` when inspection began.
        let settled: Bool
    }

    /// What identifies one version of one file without reading it.
    struct FileStamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int
        var changedSeconds: Int
        var changedNanoseconds: Int

        var changed: Double { Double(changedSeconds) + Double(changedNanoseconds) / 1e9 }
    }

    public init(directory: URL, inspector: PackageInspector = PackageInspector(), logger: Logger) {
        self.directory = directory
        self.inspector = inspector
        self.logger = logger
    }

    /// Every readable package in the directory, by file name. Files that are not packages, or that cannot be
    /// read, are skipped (and logged once per change) rather than failing the whole listing. Only regular files
    /// are opened: a FIFO, device or symbolic link named `.zip` is never read (opening a FIFO would block).
    public func entries() throws(UpdateServerError) -> [String: CatalogEntry] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory.path) } catch {
            throw .directoryUnreadable(path: directory.path, reason: "\(error)")
        }
        var result: [String: CatalogEntry] = [:]
        var seen = Set<String>()
        for name in names where name.hasSuffix(".zip") && !name.hasPrefix(".") {
            seen.insert(name)
            let url = directory.appendingPathComponent(name)
            let started = Date().timeIntervalSince1970
            guard let stamp = Self.stamp(of: url) else { continue }
            if let cached = cache[name], cached.settled, cached.stamp == stamp {
                if let entry = cached.entry { result[name] = entry }
                continue
            }
            let entry: CatalogEntry?
            do {
                entry = CatalogEntry(name: name, url: url, inspection: try inspector.inspect(packageAt: url))
            } catch {
                if cache[name]?.stamp != stamp { logger.warning("skipping \(name): \(error)") }
                entry = nil
            }
            cache[name] = Cached(stamp: stamp, entry: entry, settled: stamp.changed < started - Self.settleTime)
            if let entry { result[name] = entry }
        }
        cache = cache.filter { seen.contains($0.key) }
        return result
    }

    /// The stamp of a regular file (not following symbolic links), or nil for anything else or on failure.
    static func stamp(of url: URL) -> FileStamp? {
        var info = stat()
        guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        let changed = info.st_ctimespec
        #else
        let modified = info.st_mtim
        let changed = info.st_ctim
        #endif
        return FileStamp(
            device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino),
            size: Int64(info.st_size),
            modifiedSeconds: Int(modified.tv_sec), modifiedNanoseconds: Int(modified.tv_nsec),
            changedSeconds: Int(changed.tv_sec), changedNanoseconds: Int(changed.tv_nsec))
    }
}
