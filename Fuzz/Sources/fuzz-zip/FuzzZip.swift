import Foundation
import FuzzSupport
@testable import HybridPackages
import ZIPFoundation

/// Fuzzes `ZipStructureValidator`, the check every downloaded or served package zip passes before ZIPFoundation
/// opens it. The input is the whole zip file. When the validator accepts a file, ZIPFoundation must then open it,
/// list exactly the entries the validator counted, and read the package's small entries without trapping.
private let path: URL = {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("hybridkit-fuzz-zip-\(getpid())", isDirectory: true)
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("input.zip")
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZip(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    let bytes = Data(bytes: data, count: count)
    do { try bytes.write(to: path) } catch { fail("cannot write \(path.path): \(error)") }
    let summary: ZipStructureValidator.Summary
    do { summary = try ZipStructureValidator().validate(fileAt: path) } catch { return 0 }

    require(summary.fileSize == UInt64(count), "summary size \(summary.fileSize) for a file of \(count) bytes")
    require(summary.entryCount >= 0, "negative entry count")

    let archive: Archive
    do { archive = try Archive(url: path, accessMode: .read) } catch {
        // ZIPFoundation may still refuse what it cannot read; refusing is fine, trapping is not.
        return 0
    }
    var listed = 0
    for entry in archive {
        listed += 1
        // Every entry's bytes lie inside the file (the validator's promise), so reading a small one ends. A
        // deflate stream may inflate past its declared size: ZIPFoundation does not stop it (the validator cannot
        // know without inflating), so every reader of ours stops at the size it expects, as this does.
        if entry.type == .file, entry.uncompressedSize <= 1 << 16 {
            var read = 0
            _ = try? archive.extract(entry, skipCRC32: true) { chunk in
                read += chunk.count
                if UInt64(read) > entry.uncompressedSize { throw CocoaError(.fileReadCorruptFile) }
            }
        }
    }
    require(
        listed == summary.entryCount,
        "ZIPFoundation listed \(listed) entries, the validator counted \(summary.entryCount)")

    // The package reader on top: it must refuse or read, never trap.
    if let reader = try? PackageArchiveReader(url: path) {
        let manifest = try? reader.readSignedManifest(trustedKey: nil)
        let expected = Set(manifest?.manifest.files.map(\.path) ?? [])
        _ = try? reader.contentEntries(expected: expected)
    }
    return 0
}
