/// A validated relative path of a file inside a package, e.g. `assets/app.js`.
///
/// Every path that reaches the file system (zip entries, manifest entries, URL paths) goes through this one
/// check, so that nothing a package or a page supplies can name a file outside the package directory.
public struct PackagePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let value: String

    /// Validates `raw` as a package-relative path, throwing the reason it is unsafe.
    public init(validating raw: String) throws(PackagePathError) {
        if raw.isEmpty { throw .empty }
        if raw.contains("\\") { throw .backslash(raw) }
        if raw.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw .controlCharacter(raw)
        }
        if raw.hasPrefix("/") { throw .absolute(raw) }
        // A drive letter ("C:") would be absolute on Windows-made archives.
        if raw.count >= 2, raw.dropFirst().first == ":" { throw .absolute(raw) }
        for component in raw.split(separator: "/", omittingEmptySubsequences: false) {
            switch component {
            case "": throw .emptyComponent(raw)
            case ".", "..": throw .dotComponent(raw)
            default: continue
            }
        }
        value = raw
    }

    public var description: String { value }

    public static func < (lhs: PackagePath, rhs: PackagePath) -> Bool { lhs.value < rhs.value }
}
