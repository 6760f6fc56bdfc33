import Crypto
import Foundation

/// The signed description of a package version (stored as `manifest.json` in the zip; see docs/package-format.md).
public struct PackageManifest: Sendable, Hashable, Codable {
    /// The manifest format this library writes for full packages and plain diffs. Readers refuse newer formats
    /// rather than guess.
    public static let currentFormatVersion = 1
    /// The format of a diff manifest with binary deltas (`diff.deltas`). A reader that predates deltas refuses it
    /// (`unsupportedFormatVersion`) instead of installing delta bytes as files; everything else is format 1, so
    /// such readers keep installing full packages and plain diffs.
    public static let deltaFormatVersion = 2

    public var formatVersion: Int
    /// Reverse-DNS style identifier, e.g. `com.example.shop`; also the store's directory name.
    public var id: String
    public var version: SemanticVersion
    /// The oldest container (app/HybridKit) version able to run this package.
    public var minimumContainerVersion: SemanticVersion
    /// URL prefixes this package answers for, e.g. `https://shop.example.com/app/`.
    public var serves: [String]
    /// Path of the page opened first, and the SPA fallback.
    public var entry: String
    /// Every file of this version, sorted by path.
    public var files: [ManifestFileEntry]
    /// Present only in diff packages.
    public var diff: DiffDescriptor?
    /// Present only in the manifest of a development package (``DevelopmentPackage``): a directory served as it
    /// is, unsigned. Such a manifest never validates (``validate()`` refuses it), so no installer, store or
    /// verifier accepts one, even signed with a trusted key.
    public var development: Bool?

    public init(
        id: String, version: SemanticVersion, minimumContainerVersion: SemanticVersion,
        serves: [String],
        entry: String, files: [ManifestFileEntry], diff: DiffDescriptor? = nil,
        formatVersion: Int = PackageManifest.currentFormatVersion
    ) {
        self.formatVersion = formatVersion
        self.id = id
        self.version = version
        self.minimumContainerVersion = minimumContainerVersion
        self.serves = serves
        self.entry = entry
        self.files = files.sorted { $0.path < $1.path }
        self.diff = diff
    }

    /// Canonical bytes: sorted keys, no whitespace, unescaped slashes. These exact bytes are signed and stored.
    public func canonicalData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Decodes and validates manifest bytes as read from a package or the store.
    public static func decode(_ data: Data) throws(PackageError) -> PackageManifest {
        let manifest: PackageManifest
        do {
            manifest = try JSONDecoder().decode(PackageManifest.self, from: data)
        } catch {
            throw .manifestInvalid("manifest.json is not a valid manifest: \(error)")
        }
        try manifest.validate()
        return manifest
    }

    /// SHA-256 of the canonical encoding without the `diff` section: identifies the *contents* of a version,
    /// whether it arrived as a full package or as a diff, so a later diff can bind to it.
    public var contentDigest: String {
        var full = self
        full.diff = nil
        // A version that arrived by a delta diff has the same contents as its full package.
        full.formatVersion = Self.currentFormatVersion
        let bytes = (try? full.canonicalData()) ?? Data()
        return SHA256.hash(data: bytes).hexString
    }

    /// Files keyed by path, for constant-time lookup.
    public var filesByPath: [String: ManifestFileEntry] {
        Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Checks everything that does not need the zip: paths, duplicates, entry page, hashes, diff consistency,
    /// and that it is not a development package's manifest.
    public func validate() throws(PackageError) {
        guard development == nil else { throw .developmentPackage(id: id) }
        try validateContents()
    }

    /// Exactly 64 ASCII characters `0-9a-f`, checked on the UTF-8 bytes. `Character.isHexDigit` would also pass
    /// fullwidth digits, and its Unicode property lookups were most of the cost of validating a 2,000-file manifest.
    static func isLowercaseHexSHA256(_ text: String) -> Bool {
        let bytes = text.utf8
        return bytes.count == 64
            && bytes.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    /// What ``validate()`` checks except the development marker: a ``DevelopmentPackage`` is held to the rest.
    func validateContents() throws(PackageError) {
        guard (Self.currentFormatVersion...Self.deltaFormatVersion).contains(formatVersion) else {
            throw .unsupportedFormatVersion(formatVersion, supported: Self.deltaFormatVersion)
        }
        guard PackageIdentifier.isValid(id) else { throw .invalidPackageID(id) }
        guard !serves.isEmpty else { throw .manifestInvalid("The manifest serves no URL prefix.") }
        for prefix in serves where URLPrefix(prefix) == nil {
            throw .manifestInvalid(
                "The serves prefix '\(prefix)' is not an absolute URL like https://host/path/.")
        }
        var seen = Set<String>()
        for file in files {
            do { _ = try PackagePath(validating: file.path) } catch {
                throw .unsafeEntryPath(file.path, error)
            }
            guard seen.insert(file.path).inserted else { throw .duplicateEntry(file.path) }
            guard file.size >= 0 else {
                throw .manifestInvalid("File '\(file.path)' has a negative size.")
            }
            guard Self.isLowercaseHexSHA256(file.sha256) else {
                throw .manifestInvalid("File '\(file.path)' has a malformed SHA-256 '\(file.sha256)'.")
            }
        }
        guard seen.contains(entry) else {
            throw .manifestInvalid("The entry page '\(entry)' is not one of the package's files.")
        }
        if let diff {
            for path in diff.changed where !seen.contains(path) {
                throw .manifestInvalid("The diff carries '\(path)' but the manifest does not list it.")
            }
            for path in diff.removed where seen.contains(path) {
                throw .manifestInvalid("The diff removes '\(path)' but the manifest still lists it.")
            }
            if let deltas = diff.deltas { try validate(deltas, changed: Set(diff.changed)) }
        }
    }

    private func validate(_ deltas: [DeltaSource], changed: Set<String>) throws(PackageError) {
        guard formatVersion >= Self.deltaFormatVersion else {
            throw .manifestInvalid(
                "The diff carries binary deltas but declares manifest format \(formatVersion); deltas need format \(Self.deltaFormatVersion)."
            )
        }
        var seen = Set<String>()
        for delta in deltas {
            guard changed.contains(delta.path) else {
                throw .manifestInvalid("The diff has a delta for '\(delta.path)', which it does not carry.")
            }
            guard seen.insert(delta.path).inserted else { throw .duplicateEntry(delta.path) }
            do { _ = try PackagePath(validating: delta.base) } catch { throw .unsafeEntryPath(delta.base, error) }
            guard Self.isLowercaseHexSHA256(delta.baseSHA256) else {
                throw .manifestInvalid("The delta base of '\(delta.path)' has a malformed SHA-256.")
            }
        }
    }
}
