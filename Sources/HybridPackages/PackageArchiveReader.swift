import Crypto
import Foundation
import ZIPFoundation

/// Reads a package zip defensively: the zip's structure first (`ZipStructureValidator`, before ZIPFoundation sees
/// the file), then the signature, then an entry-by-entry safety check, then streaming, hash-checked extraction. Shared by the verifier, the installer and the diff builder so they refuse the same things.
///
/// Not `Sendable`: one reader belongs to one operation on one thread.
final class PackageArchiveReader {
    let url: URL
    private let archive: Archive
    /// How many entries the validated central directory holds: ZIPFoundation's iteration must yield all of them.
    private let entryCount: Int

    /// Validates the zip's structure (`ZipStructureValidator`) before ZIPFoundation opens it, because ZIPFoundation
    /// trusts sizes and offsets it reads and traps or spins on absurd ones, before any signature is checked.
    init(url: URL) throws(PackageError) {
        self.url = url
        let summary: ZipStructureValidator.Summary
        do { summary = try ZipStructureValidator().validate(fileAt: url) } catch {
            throw .archiveMalformed(error)
        }
        entryCount = summary.entryCount
        do { archive = try Archive(url: url, accessMode: .read) } catch {
            throw .archiveUnreadable("\(error)")
        }
        // ZIPFoundation opened the path again: it must still be the file that was validated. (It keeps that file
        // open, so a later replacement of the path no longer matters.)
        guard let identity = summary.identity, ZipFileIdentity(path: url.path) == identity else {
            throw .archiveUnreadable("the file changed while it was being opened; read it again")
        }
    }

    /// Reads `manifest.json` and `manifest.sig`, verifies the signature (when a key is given) over the exact
    /// stored bytes, then decodes and validates the manifest. Nothing else in the zip is trusted before this.
    func readSignedManifest(trustedKey: PackageVerificationKey?) throws(PackageError)
        -> SignedManifest
    {
        guard let manifestEntry = archive[PackageArchiveLayout.manifestPath] else {
            throw .missingManifest
        }
        guard let signatureEntry = archive[PackageArchiveLayout.signaturePath] else {
            throw .missingSignature
        }
        let manifestBytes = try readSmallEntry(manifestEntry)
        let signatureBytes = try readSmallEntry(signatureEntry)
        if let trustedKey {
            try ManifestSignature.decode(signatureBytes).verify(
                manifestBytes: manifestBytes, with: trustedKey)
        }
        let manifest = try PackageManifest.decode(manifestBytes)
        return SignedManifest(
            manifest: manifest, manifestBytes: manifestBytes, signatureBytes: signatureBytes)
    }

    /// Checks every entry of the zip and returns the content entries by package path.
    ///
    /// Refuses: unsafe paths (`..`, absolute, backslashes), symlinks, duplicates, files the manifest does not
    /// list, and listed files the zip lacks. `expected` is the set of paths the zip must carry.
    func contentEntries(expected: Set<String>) throws(PackageError) -> [String: Entry] {
        var found: [String: Entry] = [:]
        var metadataSeen = Set<String>()
        var iterated = 0
        for entry in archive {
            iterated += 1
            let path = entry.path
            if entry.type == .symlink { throw .symlinkEntry(path) }
            if path == PackageArchiveLayout.manifestPath || path == PackageArchiveLayout.signaturePath {
                guard metadataSeen.insert(path).inserted else { throw .duplicateEntry(path) }
                continue
            }
            let isDirectory = entry.type == .directory
            let relative: String
            if path.hasPrefix(PackageArchiveLayout.contentDirectory) {
                relative = String(path.dropFirst(PackageArchiveLayout.contentDirectory.count))
            } else {
                relative = path
            }
            let checked = isDirectory && relative.hasSuffix("/") ? String(relative.dropLast()) : relative
            // Directory entries carry no bytes; they are harmless once their path is known to be safe.
            if isDirectory && checked.isEmpty { continue }
            do { _ = try PackagePath(validating: checked) } catch { throw .unsafeEntryPath(path, error) }
            guard path.hasPrefix(PackageArchiveLayout.contentDirectory) else {
                throw .unexpectedEntry(path)
            }
            if isDirectory { continue }
            guard expected.contains(relative) else { throw .unexpectedEntry(path) }
            guard found.updateValue(entry, forKey: relative) == nil else { throw .duplicateEntry(path) }
        }
        // ZIPFoundation's iterator ends early, without an error, at an entry it cannot read (an encrypted one, for
        // one): everything after it would go unchecked. The validator refuses those, and this keeps it so.
        guard iterated == entryCount else {
            throw .archiveUnreadable("the zip reader stopped after \(iterated) of \(entryCount) entries")
        }
        for path in expected where found[path] == nil { throw .missingFile(path) }
        return found
    }

    /// Streams one entry through SHA-256 into `sink`, stopping as soon as it exceeds the promised size and
    /// failing if the final size or hash differ from the manifest. `sink` errors propagate unchanged; every other
    /// failure (corrupt deflate data, an unsupported method, a short read) is the archive's fault and becomes
    /// `archiveUnreadable`, never a file-system error that would blame the disk being written to.
    func stream(_ entry: Entry, expected: ManifestFileEntry, into sink: (Data) throws -> Void) throws {
        var hasher = SHA256()
        var count: Int64 = 0
        var sinkError: (any Error)?
        do {
            // CRC32 is skipped: SHA-256 against the signed manifest is the stronger check and we do it anyway.
            _ = try archive.extract(
                entry, bufferSize: Self.bufferSize(compressed: entry.compressedSize, expected: expected.size),
                skipCRC32: true
            ) { chunk in
                count += Int64(chunk.count)
                if count > expected.size {
                    throw PackageError.sizeMismatch(
                        path: expected.path, expected: expected.size, actual: count)
                }
                hasher.update(data: chunk)
                do { try sink(chunk) } catch {
                    sinkError = error
                    throw error
                }
            }
        } catch {
            if let sinkError { throw sinkError }
            if let packageError = error as? PackageError { throw packageError }
            throw PackageError.archiveUnreadable("entry '\(entry.path)': \(error)")
        }
        guard count == expected.size else {
            throw PackageError.sizeMismatch(path: expected.path, expected: expected.size, actual: count)
        }
        guard hasher.finalize().hexString == expected.sha256 else {
            throw PackageError.hashMismatch(path: expected.path)
        }
    }

    /// The buffer size for extracting one entry: its larger size plus one, at most `readChunkSize`.
    ///
    /// ZIPFoundation's inflater reads `bufferSize` bytes of the zip and zero-fills a `bufferSize` output buffer
    /// for every entry, whatever its size: with 256 KiB for every 10 KB file, copying and zeroing were a quarter
    /// of an install's own CPU time. The extra byte lets a whole entry inflate in one call that also sees the end
    /// of its deflate stream (an output buffer filled exactly means one more call).
    static func bufferSize(compressed: UInt64, expected: Int64) -> Int {
        let largest = max(compressed, UInt64(clamping: expected))
        return Int(min(UInt64(PackageArchiveLayout.readChunkSize - 1), largest)) + 1
    }

    /// Reads a binary delta entry whole, refusing it unread when the zip declares more than `limit` bytes and
    /// stopping as soon as more arrive: a delta is decoded from memory, so its size must be bounded first.
    func readDelta(_ entry: Entry, path: String, limit: Int64) throws(PackageError) -> Data {
        guard entry.type == .file else { throw .symlinkEntry(entry.path) }
        guard entry.uncompressedSize <= UInt64(max(0, limit)) else {
            throw .deltaInvalid(
                path: path, .tooLarge(size: Int64(clamping: entry.uncompressedSize), limit: limit))
        }
        var data = Data()
        do {
            _ = try archive.extract(
                entry, bufferSize: Self.bufferSize(compressed: entry.compressedSize, expected: limit),
                skipCRC32: false
            ) { chunk in
                data.append(chunk)
                if Int64(data.count) > limit {
                    throw PackageError.deltaInvalid(path: path, .tooLarge(size: Int64(data.count), limit: limit))
                }
            }
        } catch let error as PackageError {
            throw error
        } catch {
            // The CRC-32 is checked here (nothing else covers these bytes before decoding): a mismatch is a
            // damaged delta, which the updater answers with the full package.
            throw .deltaInvalid(path: path, .corruptStream)
        }
        return data
    }

    private func readSmallEntry(_ entry: Entry) throws(PackageError) -> Data {
        guard entry.type == .file else { throw .symlinkEntry(entry.path) }
        guard entry.uncompressedSize <= PackageArchiveLayout.maximumMetadataSize else {
            throw .manifestInvalid("'\(entry.path)' is larger than 16 MiB.")
        }
        var data = Data()
        do {
            _ = try archive.extract(entry, skipCRC32: false) { chunk in
                data.append(chunk)
                if UInt64(data.count) > PackageArchiveLayout.maximumMetadataSize {
                    throw PackageError.manifestInvalid("'\(entry.path)' is larger than 16 MiB.")
                }
            }
        } catch let error as PackageError {
            throw error
        } catch {
            // Reading from the archive only: any failure is the archive's (bad CRC, corrupt deflate), not the disk's.
            throw .archiveUnreadable("entry '\(entry.path)': \(error)")
        }
        return data
    }
}
