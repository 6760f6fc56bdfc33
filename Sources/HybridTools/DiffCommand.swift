import ArgumentParser
import Foundation
import HybridPackages

public struct DiffCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Build a signed diff package that updates <old> to <new> with only the changed files.",
        discussion: """
            Both inputs must be full packages of the same id, <new> later than <old>, both signed by --key's
            public half (they are verified first). The diff is itself signed, which is why --key takes the
            *private* key: installers refuse unsigned or foreign-signed diffs like any other package. A device
            applies it only on top of exactly <old>'s contents; otherwise the updater falls back to the full package.
            Changed files travel as binary deltas against a file of <old> (the same path, the same name without its
            content hash, or the most similar file of the type) where that is at most 0.8× the deflated file; such a
            diff needs a client that reads deltas (manifest format 2). --no-deltas builds the plain diff any client
            reads.
            """)

    @Argument(help: "The installed (base) full package.", completion: .file(extensions: ["zip"]))
    var old: String

    @Argument(help: "The new full package.", completion: .file(extensions: ["zip"]))
    var new: String

    @Option(
        name: .long, help: "Private key file from `hybrid keygen`: signs the diff.",
        completion: .file(extensions: ["private"]))
    var key: String

    @Option(name: .long, help: "Output zip file.", completion: .file(extensions: ["zip"]))
    var out: String

    @Flag(
        name: .long, inversion: .prefixedNo,
        help: "Carry changed files as binary deltas where they are at most 0.8× the deflated file.")
    var deltas = true

    public func run() throws {
        for path in [old, new] where !FileManager.default.fileExists(atPath: path) {
            throw PackageCommandError.fileMissing(path: path)
        }
        let keyPair = try PackageKeyPair.load(privateKeyFrom: URL(fileURLWithPath: key))
        let output = URL(fileURLWithPath: out)
        let progress = ProgressLine()
        let manifest = try PackageDiffBuilder().buildDiff(
            from: URL(fileURLWithPath: old), to: URL(fileURLWithPath: new), keyPair: keyPair,
            output: output, deltas: deltas, progress: progress.handler)
        progress.finish()
        let zip = try PackageInspector().inspect(packageAt: output)
        let changed = manifest.diff?.changed.count ?? 0
        let removed = manifest.diff?.removed.count ?? 0
        let base = manifest.diff.map { "\($0.baseVersion)" } ?? "?"
        let deltaCount = manifest.diff?.deltas?.count ?? 0
        print("diff \(manifest.id) \(base) → \(manifest.version): \(changed) changed, \(removed) removed")
        if deltaCount > 0 { print("\(deltaCount) changed files as binary deltas (manifest format 2)") }
        print("wrote \(output.path): \(zip.size) bytes, sha256 \(zip.sha256)")
    }

    public init() {}
}
