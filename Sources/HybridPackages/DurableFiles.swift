import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few durability primitives the store needs (see docs/package-format.md, "Durability").
enum DurableFiles {
    /// Flushes everything written under `directory`'s file system with a single call.
    ///
    /// One `syncfs` costs about the same as one `fsync` of a large file, while 2,000 per-file fsyncs would
    /// dominate install time. Where `syncfs` is missing, `sync()` gives the same guarantee for local disks.
    static func syncFileSystem(containing directory: URL) throws(PackageError) {
        #if os(Linux)
        let fd = try openDirectory(directory)
        defer { _ = Glibc_or_Darwin_close(fd) }
        if linux_syncfs(fd) != 0 {
            throw .fileSystem(
                operation: "sync", path: directory.path, reason: String(cString: strerror(errno)))
        }
        #else
        sync()
        #endif
    }

    /// Makes a rename or unlink inside `directory` durable.
    static func syncDirectory(_ directory: URL) throws(PackageError) {
        let fd = try openDirectory(directory)
        defer { _ = Glibc_or_Darwin_close(fd) }
        if fsync(fd) != 0 {
            throw .fileSystem(
                operation: "sync", path: directory.path, reason: String(cString: strerror(errno)))
        }
    }

    /// Replaces `url` with `data` so that readers (and a crash) see either the old or the new bytes, never a mix:
    /// write a temporary file, fsync it, rename it over the target, fsync the directory.
    static func atomicWrite(_ data: Data, to url: URL) throws(PackageError) {
        let temporary = url.appendingPathExtension("tmp")
        do {
            let fd = temporary.withUnsafeFileSystemRepresentation { path -> Int32 in
                guard let path else { return -1 }
                return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            }
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let file = POSIXWritableFile(fd: fd)
            try file.write(data)
            guard fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            try file.close()
            guard rename(temporary.path, url.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw PackageError.wrapping(error, operation: "write", path: url.path)
        }
        try syncDirectory(url.deletingLastPathComponent())
    }

    private static func openDirectory(_ directory: URL) throws(PackageError) -> Int32 {
        let fd = directory.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { return -1 }
            return open(path, O_RDONLY | O_CLOEXEC)
        }
        guard fd >= 0 else {
            throw .fileSystem(
                operation: "open", path: directory.path, reason: String(cString: strerror(errno)))
        }
        return fd
    }
}

#if os(Linux)
/// glibc's `syncfs(2)`; the Glibc module hides it behind `_GNU_SOURCE`, so it is bound by symbol name.
@_silgen_name("syncfs")
private func linux_syncfs(_ fd: Int32) -> Int32
#endif
