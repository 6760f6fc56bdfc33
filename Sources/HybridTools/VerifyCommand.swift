import ArgumentParser
import Foundation
import HybridPackages

public struct VerifyCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a package (full or diff) the way an installer would, without installing it.",
        discussion: """
            Checks the signature against the public key, the manifest, every zip entry's path and type, and every
            file's size and SHA-256. Prints the id, version and file count, then OK; on failure prints why and exits
            with status 1.
            """)

    @Argument(help: "The package zip.", completion: .file(extensions: ["zip"]))
    var package: String

    @Option(
        name: .long, help: "Public key file from `hybrid keygen` (the one the app trusts).",
        completion: .file(extensions: ["public"]))
    var key: String

    public func run() throws {
        guard FileManager.default.fileExists(atPath: package) else {
            throw PackageCommandError.fileMissing(path: package)
        }
        let trusted = try PackageVerificationKey.load(from: URL(fileURLWithPath: key))
        let progress = ProgressLine()
        let manifest = try PackageVerifier(trustedKey: trusted).verify(
            packageAt: URL(fileURLWithPath: package), progress: progress.handler)
        progress.finish()
        print("id:      \(manifest.id)")
        print("version: \(manifest.version)")
        if let diff = manifest.diff {
            print("diff:    from \(diff.baseVersion), \(diff.changed.count) changed, \(diff.removed.count) removed")
        }
        print("files:   \(manifest.files.count)")
        print("OK")
    }

    public init() {}
}
