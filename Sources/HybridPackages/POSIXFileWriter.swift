import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files with plain `open`/`write`/`close`.
///
/// No per-file `fsync`: the installer makes the whole staging directory durable with one file-system sync
/// before the commit rename (see docs/package-format.md, "Durability"), which is what keeps installs near `unzip` speed.
public struct POSIXFileWriter: FileWriting {
    public init() {}

    public func createFile(at url: URL) throws -> any WritableFile {
        let fd = url.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { return -1 }
            return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return POSIXWritableFile(fd: fd)
    }
}

/// A file descriptor opened by `POSIXFileWriter`.
final class POSIXWritableFile: WritableFile {
    private var fd: Int32

    init(fd: Int32) { self.fd = fd }

    deinit { if fd >= 0 { _ = Glibc_or_Darwin_close(fd) } }

    func write(_ data: Data) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var base = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                #if canImport(Darwin)
                let written = Darwin.write(fd, base, remaining)
                #elseif canImport(Glibc)
                let written = Glibc.write(fd, base, remaining)
                #else
                let written = Musl.write(fd, base, remaining)
                #endif
                if written < 0 {
                    if errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                remaining -= written
                base += written
            }
        }
    }

    func close() throws {
        guard fd >= 0 else { return }
        let result = Glibc_or_Darwin_close(fd)
        fd = -1
        // close can report a delayed write error (e.g. ENOSPC on NFS); treat it like a failed write.
        if result != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}

@inline(__always)
func Glibc_or_Darwin_close(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    return Darwin.close(fd)
    #elseif canImport(Glibc)
    return Glibc.close(fd)
    #else
    return Musl.close(fd)
    #endif
}
