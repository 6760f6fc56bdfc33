import Crypto
import Foundation
import HybridPackages

/// The files of a release tree that `hybrid serve` answers, found only through names that cannot leave the tree:
/// `files/<64 hex>.zip` and `channels/<channel>/<id>.json` with channel and id restricted like package ids.
struct ReleaseTreeFiles: Sendable {
    let layout: ReleaseTreeLayout

    init(root: URL) { layout = ReleaseTreeLayout(root: root) }

    /// A content-named package: its name is its SHA-256, so that is its entity tag and it never changes.
    func packageFile(named name: String) -> PackageFileResponder.ServedFile? {
        guard name.hasSuffix(".zip") else { return nil }
        let hash = String(name.dropLast(4))
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        let url = layout.file(sha256: hash)
        guard let size = Self.regularFileSize(url) else { return nil }
        return PackageFileResponder.ServedFile(
            url: url, size: size, entityTag: "\"\(hash)\"", contentType: "application/zip",
            cacheControl: "public, max-age=31536000, immutable")
    }

    /// An index: small, so its entity tag is the SHA-256 of its current bytes (a rewrite always changes it).
    func indexFile(channel: String, name: String) -> PackageFileResponder.ServedFile? {
        guard PackageIdentifier.isValid(channel), name.hasSuffix(".json"),
            PackageIdentifier.isValid(String(name.dropLast(5)))
        else { return nil }
        let url = layout.index(channel: channel, id: String(name.dropLast(5)))
        guard Self.regularFileSize(url) != nil, let data = try? Data(contentsOf: url) else { return nil }
        let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        return PackageFileResponder.ServedFile(
            url: url, size: Int64(data.count), entityTag: "\"\(hash)\"", contentType: "application/json",
            cacheControl: "no-cache")
    }

    private static func regularFileSize(_ url: URL) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }
}
