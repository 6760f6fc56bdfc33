import Foundation
import HybridPackages
import Logging

/// The `.zip` files of one directory, read on each request so packages dropped in (or removed) show up at once.
///
/// Reading a manifest and hashing a file is the expensive part, so results are cached by name, size and
/// modification time; an unchanged directory costs one listing and a `stat` per file.
public actor PackageCatalog {
    public let directory: URL
    private let inspector: PackageInspector
    private let logger: Logger
    private var cache: [String: (stamp: FileStamp, entry: CatalogEntry?)] = [:]

    struct FileStamp: Equatable {
        var size: Int64
        var modified: Date
    }

    public init(directory: URL, inspector: PackageInspector = PackageInspector(), logger: Logger) {
        self.directory = directory
        self.inspector = inspector
        self.logger = logger
    }

    /// Every readable package in the directory, by file name. Files that are not packages are skipped (and
    /// logged once per change) rather than failing the whole listing.
    public func entries() throws(UpdateServerError) -> [String: CatalogEntry] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory.path) } catch {
            throw .directoryUnreadable(path: directory.path, reason: "\(error)")
        }
        var result: [String: CatalogEntry] = [:]
        var seen = Set<String>()
        for name in names where name.hasSuffix(".zip") && !name.hasPrefix(".") {
            seen.insert(name)
            let url = directory.appendingPathComponent(name)
            guard let stamp = Self.stamp(of: url) else { continue }
            if let cached = cache[name], cached.stamp == stamp {
                if let entry = cached.entry { result[name] = entry }
                continue
            }
            let entry: CatalogEntry?
            do {
                entry = CatalogEntry(name: name, url: url, inspection: try inspector.inspect(packageAt: url))
            } catch {
                logger.warning("skipping \(name): \(error)")
                entry = nil
            }
            cache[name] = (stamp, entry)
            if let entry { result[name] = entry }
        }
        cache = cache.filter { seen.contains($0.key) }
        return result
    }

    private static func stamp(of url: URL) -> FileStamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? NSNumber,
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return FileStamp(size: size.int64Value, modified: modified)
    }
}
