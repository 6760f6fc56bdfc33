import Crypto
import Foundation
import ZIPFoundation

/// Rebuilds one file of a diff from its binary delta and a file of the installed base, into the staging directory.
///
/// Memory: the base file and the delta (bounded by ``DeltaDecoder/sizeLimit(outputSize:)`` before it is read), about
/// twice the larger file; the output streams to disk. The output is hashed as it is written and must match the
/// signed manifest, like every extracted file, before the installer commits anything.
struct DeltaFileApplier {
    let fileWriter: any FileWriting

    func apply(
        _ entry: Entry, source: DeltaSource, file: ManifestFileEntry, reader: PackageArchiveReader,
        base: InstalledPackage, to destination: URL
    ) throws(PackageError) {
        let delta = try reader.readDelta(
            entry, path: file.path, limit: DeltaDecoder.sizeLimit(outputSize: file.size))
        let baseBytes = try readBase(base, source: source)
        var hasher = SHA256()
        do {
            let sink = try fileWriter.createFile(at: destination)
            do {
                try DeltaDecoder().apply(delta: delta, base: baseBytes, expectedSize: file.size) { chunk in
                    hasher.update(data: chunk)
                    try sink.write(chunk)
                }
                try sink.close()
            } catch {
                try? sink.close()
                throw error
            }
        } catch let error as DeltaError {
            throw .deltaInvalid(path: file.path, error)
        } catch {
            throw .wrapping(error, operation: "write", path: file.path)
        }
        guard hasher.finalize().hexString == file.sha256 else {
            throw .deltaInvalid(path: file.path, .outputHashMismatch)
        }
    }

    /// The base file's bytes, checked against the SHA-256 the delta names: an installed file damaged since its
    /// install would otherwise rebuild a wrong file (caught by the output hash, but blamed on the delta).
    private func readBase(_ base: InstalledPackage, source: DeltaSource) throws(PackageError) -> Data {
        let url = base.fileURL(for: source.base)
        let bytes: Data
        do { bytes = try Data(contentsOf: url) } catch {
            throw .diffBaseMismatch(id: base.id, base: base.version)
        }
        guard SHA256.hash(data: bytes).hexString == source.baseSHA256 else {
            throw .diffBaseMismatch(id: base.id, base: base.version)
        }
        return bytes
    }
}
