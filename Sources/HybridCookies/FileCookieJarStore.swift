import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Stores persistent cookies in one JSON file, crash-safely.
///
/// `save` writes a temporary file in the same directory, fsyncs it, renames it over the jar file
/// (rename is atomic on POSIX file systems) and fsyncs the directory so the rename itself is
/// durable. A crash at any point leaves either the old complete file or the new complete file.
/// The store assumes one process owns the file; leftover temporary files from a crash are removed
/// by the next `load()`.
public struct FileCookieJarStore: CookieJarStore {
    public let fileURL: URL

    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    private var directoryURL: URL { fileURL.deletingLastPathComponent() }
    private var temporaryPrefix: String { "." + fileURL.lastPathComponent + ".tmp-" }

    public func load() throws(CookieJarStoreError) -> [JarCookie] {
        removeStaleTemporaryFiles()
        let path = fileURL.path
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return []
        } catch {
            if !FileManager.default.fileExists(atPath: path) { return [] }
            throw .readFailed(path: path, reason: "\(error)")
        }
        let document: PersistedCookieJar
        do {
            document = try JSONDecoder().decode(PersistedCookieJar.self, from: data)
        } catch {
            throw .corrupt(path: path, reason: "\(error)")
        }
        guard document.format == PersistedCookieJar.formatName else {
            throw .corrupt(path: path, reason: "format is '\(document.format)'")
        }
        guard document.version <= PersistedCookieJar.currentVersion else {
            throw .unsupportedVersion(path: path, version: document.version)
        }
        return document.cookies
    }

    public func save(_ cookies: [JarCookie]) throws(CookieJarStoreError) {
        let document = PersistedCookieJar(
            format: PersistedCookieJar.formatName, version: PersistedCookieJar.currentVersion,
            cookies: cookies)
        let data: Data
        do {
            data = try JSONEncoder().encode(document)
        } catch {
            throw .encodingFailed(reason: "\(error)")
        }
        try writeAtomically(data)
    }

    /// Renames the unreadable file to `<name>.corrupt-<unix time>` next to it, keeping it for inspection.
    public func quarantineCorruptData() throws(CookieJarStoreError) -> String? {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
        let stamp = Int(Date().timeIntervalSince1970)
        let target = directoryURL.appendingPathComponent(
            "\(fileURL.lastPathComponent).corrupt-\(stamp)")
        guard rename(fileURL.path, target.path) == 0 else {
            throw .writeFailed(path: target.path, step: "rename", code: errno)
        }
        return target.path
    }

    private func writeAtomically(_ data: Data) throws(CookieJarStoreError) {
        let path = fileURL.path
        try? FileManager.default.createDirectory(at: directoryURL, withIntermediateDirectories: true)
        let temporaryURL = directoryURL.appendingPathComponent(
            temporaryPrefix + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let temporaryPath = temporaryURL.path

        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .writeFailed(path: temporaryPath, step: "open", code: errno) }
        var failure: CookieJarStoreError? = nil
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(fd, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = .writeFailed(path: temporaryPath, step: "write", code: errno)
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 {
            failure = .writeFailed(path: temporaryPath, step: "fsync", code: errno)
        }
        close(fd)
        if failure == nil, rename(temporaryPath, path) != 0 {
            failure = .writeFailed(path: path, step: "rename", code: errno)
        }
        if let failure {
            unlink(temporaryPath)
            throw failure
        }
        // Make the rename durable: without this a power loss could bring back the old directory entry.
        let directoryFD = open(directoryURL.path, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    private func removeStaleTemporaryFiles() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directoryURL.path) else {
            return
        }
        for name in names where name.hasPrefix(temporaryPrefix) {
            unlink(directoryURL.appendingPathComponent(name).path)
        }
    }
}
