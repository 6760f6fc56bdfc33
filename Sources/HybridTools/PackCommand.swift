import ArgumentParser
import Foundation
import HybridPackages

public struct PackCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Build a signed offline package (.zip) from a directory of H5 files.",
        discussion: """
            Every regular file under <dir> goes in (symbolic links are refused). The manifest records each file's
            size, SHA-256 and MIME type, the URL prefixes the package serves and its entry page; it is signed with
            the private key from `hybrid keygen`. Prints the file count, the size and the SHA-256 of the zip —
            publish those with it. Example:
              hybrid pack dist --id com.example.shop --version 1.2.0 --serves https://shop.example.com/app/ \\
                --entry index.html --key keys/shop.private --out shop-1.2.0.zip
            """)

    @Argument(help: "Directory holding the package's files.", completion: .directory)
    var directory: String

    @Option(name: .long, help: "Package id: letters, digits, '.', '_', '-' (e.g. com.example.shop).")
    var id: String

    @Option(name: .long, help: "Version of this package (SemVer, e.g. 1.2.0).")
    var version: SemanticVersion

    @Option(
        name: .long, parsing: .upToNextOption,
        help: "URL prefixes the package serves (one or more, e.g. https://shop.example.com/app/).")
    var serves: [String]

    @Option(name: .long, help: "Path of the entry page inside <dir>.")
    var entry: String = "index.html"

    @Option(name: .long, help: "Private key file from `hybrid keygen`.", completion: .file(extensions: ["private"]))
    var key: String

    @Option(name: .customLong("min-container"), help: "Oldest container version that may install this package.")
    var minContainer: SemanticVersion = SemanticVersion(major: 0, minor: 0, patch: 0)

    @Option(name: .long, help: "Output zip file.", completion: .file(extensions: ["zip"]))
    var out: String

    public func validate() throws {
        guard !serves.isEmpty else { throw ValidationError("give at least one --serves URL prefix") }
        guard !entry.isEmpty else { throw ValidationError("--entry cannot be empty") }
    }

    public func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
            isDirectory.boolValue
        else { throw PackageCommandError.notADirectory(path: directory) }
        let keyPair = try PackageKeyPair.load(privateKeyFrom: URL(fileURLWithPath: key))
        let output = URL(fileURLWithPath: out)
        let progress = ProgressLine()
        let manifest = try PackagePacker().pack(
            directory: URL(fileURLWithPath: directory),
            options: PackOptions(
                id: id, version: version, serves: serves, entry: entry,
                minimumContainerVersion: minContainer),
            keyPair: keyPair, to: output, progress: progress.handler)
        progress.finish()
        let zip = try PackageInspector().inspect(packageAt: output)
        let bytes = manifest.files.reduce(Int64(0)) { $0 + $1.size }
        print("packed \(manifest.id) \(manifest.version): \(manifest.files.count) files, \(bytes) bytes")
        print("wrote \(output.path): \(zip.size) bytes, sha256 \(zip.sha256)")
        print("signed with key \(keyPair.verificationKey.keyID)")
    }

    public init() {}
}
