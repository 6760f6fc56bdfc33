import Crypto
import Foundation

/// Streaming SHA-256 of files on disk: bounded memory whatever the file size.
enum FileHashing {
    static func sha256(of url: URL) throws(PackageError) -> (hex: String, size: Int64) {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw .wrapping(error, operation: "read", path: url.path)
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            while let chunk = try handle.read(upToCount: PackageArchiveLayout.readChunkSize),
                !chunk.isEmpty
            {
                hasher.update(data: chunk)
                size += Int64(chunk.count)
            }
        } catch {
            throw .wrapping(error, operation: "read", path: url.path)
        }
        return (hasher.finalize().hexString, size)
    }
}
