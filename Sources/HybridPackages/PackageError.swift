/// Everything that can go wrong packing, verifying, installing or switching package versions.
///
/// Each message says what was wrong and what to do, because these reach developers through the CLI and logs.
public enum PackageError: Error, Sendable, CustomStringConvertible {
    case archiveUnreadable(String)
    /// The zip's structure failed `ZipStructureValidator`'s pre-flight check: sizes or offsets outside the file,
    /// headers that contradict each other, encryption or an unsupported method. Nothing in it was trusted.
    case archiveMalformed(ZipStructureError)
    case missingManifest
    case missingSignature
    case manifestInvalid(String)
    case unsupportedFormatVersion(Int, supported: Int)
    case invalidPackageID(String)
    /// The signature file names a different signing key than the trusted one.
    case untrustedSigningKey(signedBy: String, trusted: String)
    /// The signature does not verify: the manifest was changed after signing, or the signature is corrupt.
    case signatureInvalid
    case unsafeEntryPath(String, PackagePathError)
    case symlinkEntry(String)
    case duplicateEntry(String)
    case unexpectedEntry(String)
    case missingFile(String)
    case sizeMismatch(path: String, expected: Int64, actual: Int64)
    case hashMismatch(path: String)
    case containerTooOld(required: SemanticVersion, running: SemanticVersion)
    case diffBaseNotInstalled(id: String, base: SemanticVersion)
    case diffBaseMismatch(id: String, base: SemanticVersion)
    /// A file carried as a binary delta could not be rebuilt: the delta is damaged or hostile (or its output does
    /// not match the manifest). Nothing was activated; the full package installs instead.
    case deltaInvalid(path: String, DeltaError)
    case alreadyInstalled(id: String, version: SemanticVersion)
    case versionNotInstalled(id: String, version: SemanticVersion)
    case packageNotInstalled(String)
    case noPreviousVersion(id: String)
    case diskFull(path: String)
    case fileSystem(operation: String, path: String, reason: String)
    case sourceDirectoryInvalid(String)
    /// The manifest is a development package's (``DevelopmentPackage``): an unsigned directory served by
    /// `hybrid run`, never a release.
    case developmentPackage(id: String)

    public var description: String {
        switch self {
        case .archiveUnreadable(let reason):
            return
                "The package is not a readable zip archive (\(reason)); it may be truncated: download it again."
        case .archiveMalformed(let reason):
            return
                "The package is not a well-formed package zip (\(reason)); it is damaged or was built to attack the reader: download it again or repack it with `hybrid pack`."
        case .missingManifest:
            return "The package has no manifest.json at its root; build it with `hybrid pack`."
        case .missingSignature:
            return "The package has no manifest.sig; sign it with `hybrid pack --key`."
        case .manifestInvalid(let reason):
            return "The package manifest is invalid: \(reason)"
        case .unsupportedFormatVersion(let found, let supported):
            return
                "The package uses manifest format \(found) but this app reads format \(supported); update the app or repack."
        case .invalidPackageID(let id):
            return
                "'\(id)' is not a valid package id; use letters, digits, '.', '-' and '_' (e.g. com.example.shop)."
        case .untrustedSigningKey(let signedBy, let trusted):
            return
                "The package was signed with key \(signedBy) but this app trusts key \(trusted); sign it with the trusted key."
        case .signatureInvalid:
            return
                "The manifest signature does not verify with the trusted key: the package was modified after signing or its signature is corrupt."
        case .unsafeEntryPath(let path, let reason):
            return "The package contains an unsafe path '\(path)': \(reason)"
        case .symlinkEntry(let path):
            return
                "The package contains a symbolic link '\(path)'; packages may contain regular files only."
        case .duplicateEntry(let path):
            return "The package contains '\(path)' more than once."
        case .unexpectedEntry(let path):
            return "The package contains '\(path)', which its manifest does not list; repack it."
        case .missingFile(let path):
            return "The manifest lists '\(path)' but the package does not contain it; repack it."
        case .sizeMismatch(let path, let expected, let actual):
            return
                "'\(path)' is \(actual) bytes but the manifest says \(expected): the package was tampered with or damaged."
        case .hashMismatch(let path):
            return
                "'\(path)' does not match its SHA-256 in the manifest: the package was tampered with or damaged."
        case .containerTooOld(let required, let running):
            return
                "The package needs container version \(required) or later; this is \(running). Update the app."
        case .diffBaseNotInstalled(let id, let base):
            return
                "The diff for '\(id)' applies to version \(base), which is not installed; download the full package."
        case .diffBaseMismatch(let id, let base):
            return
                "The diff for '\(id)' was made from a different build of \(base) than the one installed; download the full package."
        case .deltaInvalid(let path, let reason):
            return "The binary delta for '\(path)' cannot be applied: \(reason)"
        case .alreadyInstalled(let id, let version):
            return "'\(id)' \(version) is already installed; activate it instead of installing it again."
        case .versionNotInstalled(let id, let version):
            return "'\(id)' \(version) is not installed."
        case .packageNotInstalled(let id):
            return "No version of '\(id)' is installed."
        case .noPreviousVersion(let id):
            return "'\(id)' has no earlier version to roll back to."
        case .diskFull(let path):
            return
                "The disk is full while writing '\(path)'; free some space and install again. The current version keeps serving."
        case .fileSystem(let operation, let path, let reason):
            return "Could not \(operation) '\(path)': \(reason)"
        case .sourceDirectoryInvalid(let reason):
            return "Cannot pack the directory: \(reason)"
        case .developmentPackage(let id):
            return
                "'\(id)' is a development package (an unsigned directory served by `hybrid run`), which is never installed; build a release with `hybrid pack --key`."
        }
    }
}
