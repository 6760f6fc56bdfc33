import Foundation
import HybridPackages
import ZIPFoundation

/// A scratch directory with a signing key and helpers to build sites, packages and stores.
final class Fixture {
    let root: URL
    let keyPair = PackageKeyPair.generate()
    let containerVersion = SemanticVersion(major: 1, minor: 0, patch: 0)
    static let serves = "https://app.example.com/shop/"

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hybrid-packages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var storeRoot: URL { root.appendingPathComponent("store") }

    func url(_ name: String) -> URL { root.appendingPathComponent(name) }

    /// Writes `files` into a new directory and returns it.
    func site(_ name: String, _ files: [String: String]) throws -> URL {
        let directory = url("site-\(name)")
        for (path, text) in files {
            let file = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        return directory
    }

    static func files(version: String) -> [String: String] {
        [
            "index.html": "<html>shop \(version)</html>",
            "app.js": "console.log('\(version)')",
            "assets/logo.svg": "<svg/>",
            "assets/unchanged.css": "body{}",
        ]
    }

    /// Packs `files` (default: the standard site for `version`) into `<name>.zip`.
    @discardableResult
    func pack(
        _ version: String, files: [String: String]? = nil, id: String = "com.example.shop",
        serves: [String] = [Fixture.serves], keyPair: PackageKeyPair? = nil
    ) throws -> URL {
        let directory = try site("\(id)-\(version)", files ?? Fixture.files(version: version))
        let output = url("\(id)-\(version).zip")
        guard let semver = SemanticVersion(version) else { throw FixtureError.badVersion(version) }
        try PackagePacker().pack(
            directory: directory, options: PackOptions(id: id, version: semver, serves: serves),
            keyPair: keyPair ?? self.keyPair, to: output)
        return output
    }

    func openStore(keepVersions: Int = 3) throws -> PackageStore {
        try PackageStore(
            root: storeRoot, keepVersions: keepVersions, trustedKey: keyPair.verificationKey)
    }

    func installer(_ store: PackageStore, writer: any FileWriting = POSIXFileWriter())
        -> PackageInstaller
    {
        PackageInstaller(
            store: store, trustedKey: keyPair.verificationKey, containerVersion: containerVersion,
            fileWriter: writer)
    }

    /// Reads every entry of a zip into memory (test packages are tiny).
    static func entries(of zip: URL) throws -> [(path: String, data: Data)] {
        let archive = try Archive(url: zip, accessMode: .read)
        var result: [(String, Data)] = []
        for entry in archive {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            result.append((entry.path, data))
        }
        return result
    }

    /// Writes a zip with exactly these entries (in order), including hostile ones.
    static func writeZip(
        _ entries: [(path: String, data: Data)], to url: URL, symlinks: [String: String] = [:]
    )
        throws
    {
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count)) {
                position, size in
                data.subdata(in: Int(position)..<min(Int(position) + size, data.count))
            }
        }
        for (path, target) in symlinks {
            let data = Data(target.utf8)
            try archive.addEntry(with: path, type: .symlink, uncompressedSize: Int64(data.count)) {
                position, size in
                data.subdata(in: Int(position)..<min(Int(position) + size, data.count))
            }
        }
    }

    /// Copies a package zip, letting `transform` change its entries.
    func rewrite(
        _ source: URL, as name: String, _ transform: (inout [(path: String, data: Data)]) -> Void
    ) throws
        -> URL
    {
        var entries = try Fixture.entries(of: source)
        transform(&entries)
        let destination = url(name)
        try Fixture.writeZip(entries, to: destination)
        return destination
    }
}

enum FixtureError: Error {
    case badVersion(String)
}

extension SemanticVersion: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self =
            SemanticVersion(value)
            ?? SemanticVersion(major: 0, minor: 0, patch: 0, prerelease: ["invalid"])
    }
}
