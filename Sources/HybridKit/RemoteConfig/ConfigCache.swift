import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The last good signed configuration on disk, exactly as received (so it is verified again when read: the disk is
/// not trusted more than the network). Written crash-safely: temporary file, fsync, rename, fsync of the directory,
/// so a crash leaves the old file or the new one, never a torn one.
public struct ConfigCache: Sendable {
    public let file: URL

    public init(directory: URL, name: String = "remote-config.signed.json") {
        file = directory.appendingPathComponent(name)
    }

    /// The cached envelope, nil when there is none yet.
    public func load() throws(ConfigError) -> Data? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do { return try Data(contentsOf: file) } catch {
            throw .cache(path: file.path, reason: error.localizedDescription)
        }
    }

    public func save(_ envelope: Data) throws(ConfigError) {
        let directory = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .cache(path: directory.path, reason: error.localizedDescription)
        }
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(getpid()).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cache(path: temporary.path, reason: String(cString: strerror(errno))) }
        var ok = envelope.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                guard let base = raw.baseAddress else { return false }
                let written = write(fd, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok, rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw .cache(path: file.path, reason: reason)
        }
        let directoryFD = open(directory.path, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }
}
