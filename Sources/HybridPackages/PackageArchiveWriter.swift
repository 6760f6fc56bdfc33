import Foundation
import ZIPFoundation

/// Writes a package zip next to its destination and moves it into place only when complete,
/// so a failed or interrupted `pack`/`diff` never leaves a half-written package under the final name.
final class PackageArchiveWriter {
    private let destination: URL
    private let temporary: URL
    private let archive: Archive

    init(destination: URL) throws(PackageError) {
        self.destination = destination
        temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial")
        do { archive = try Archive(url: temporary, accessMode: .create) } catch {
            throw .fileSystem(operation: "create", path: destination.path, reason: "\(error)")
        }
    }

    /// Adds the manifest and its signature first, so readers find them without scanning to the end.
    func addMetadata(manifestBytes: Data, signatureBytes: Data) throws(PackageError) {
        try addData(manifestBytes, path: PackageArchiveLayout.manifestPath)
        try addData(signatureBytes, path: PackageArchiveLayout.signaturePath)
    }

    /// Adds a package file from disk under `content/`.
    /// `compressed` says the bytes are deflated already (a binary delta): stored, not deflated again.
    func addFile(packagePath: String, from fileURL: URL, compressed: Bool = false) throws(PackageError) {
        let method: CompressionMethod =
            compressed || MIMETypes.isAlreadyCompressed(packagePath) ? .none : .deflate
        do {
            try archive.addEntry(
                with: PackageArchiveLayout.contentDirectory + packagePath, fileURL: fileURL,
                compressionMethod: method, bufferSize: PackageArchiveLayout.readChunkSize)
        } catch {
            throw .wrapping(error, operation: "add to the package", path: packagePath)
        }
    }

    /// Moves the finished zip to its destination with `rename`, which atomically replaces any previous file.
    func finish() throws(PackageError) {
        guard rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw .fileSystem(operation: "write", path: destination.path, reason: reason)
        }
    }

    /// Removes the partial zip after a failure.
    func discard() { try? FileManager.default.removeItem(at: temporary) }

    private func addData(_ data: Data, path: String) throws(PackageError) {
        do {
            try archive.addEntry(
                with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none
            ) { position, size in
                let start = Int(position)
                return data.subdata(in: start..<min(start + size, data.count))
            }
        } catch {
            throw .wrapping(error, operation: "add to the package", path: path)
        }
    }
}
