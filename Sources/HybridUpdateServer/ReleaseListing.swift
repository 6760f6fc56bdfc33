import Foundation
import HybridPackages

/// Builds the release document of one package id from the catalog: the newest full package, plus every diff
/// package whose target is that same version (one per base version).
enum ReleaseListing {
    static func latest(id: String, in entries: [String: CatalogEntry]) -> ReleaseDocument? {
        // Sorted by name so that, when two files claim the same thing, the answer does not depend on listing order.
        let candidates = entries.values.filter { $0.manifest.id == id }.sorted { $0.name < $1.name }
        let fulls = candidates.filter { $0.manifest.diff == nil }
        guard let newest = fulls.max(by: { $0.manifest.version < $1.manifest.version }) else {
            return nil
        }
        let version = newest.manifest.version
        var diffs: [String: ReleaseDiff] = [:]
        for entry in candidates where entry.manifest.version == version {
            guard let base = entry.manifest.diff?.baseVersion.description, diffs[base] == nil else {
                continue
            }
            diffs[base] = ReleaseDiff(
                from: base, url: fileURL(entry), size: entry.inspection.size,
                sha256: entry.inspection.sha256)
        }
        return ReleaseDocument(
            id: id, version: version.description,
            full: ReleaseFile(
                url: fileURL(newest), size: newest.inspection.size, sha256: newest.inspection.sha256),
            diffs: diffs.values.sorted { $0.from < $1.from })
    }

    /// Origin-relative, so the document is right whatever host name or address the client used to reach us.
    static func fileURL(_ entry: CatalogEntry) -> String {
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
        let name = entry.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? entry.name
        return "/v1/files/\(name)"
    }
}
