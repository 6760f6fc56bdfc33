import ArgumentParser
import Foundation
import HybridPackages

public struct KeygenCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Create an Ed25519 key pair for signing offline packages.",
        discussion: """
            Writes <prefix>.private (mode 0600: keep it secret, it signs packages) and <prefix>.public (ship it in the
            app: installers trust packages signed by its private half). Existing files are kept unless --force.
            """)

    @Option(
        name: .long, help: "Path prefix of the two key files, e.g. keys/shop → keys/shop.private, keys/shop.public.")
    var out: String

    @Flag(name: .long, help: "Replace existing key files.")
    var force = false

    public func validate() throws {
        guard !out.isEmpty, !out.hasSuffix("/") else {
            throw ValidationError("--out needs a file name prefix, not a directory (e.g. --out keys/shop)")
        }
    }

    public func run() throws {
        let privateURL = URL(fileURLWithPath: out + ".private")
        let publicURL = URL(fileURLWithPath: out + ".public")
        if !force {
            for url in [privateURL, publicURL] where FileManager.default.fileExists(atPath: url.path) {
                throw PackageCommandError.wouldOverwrite(path: url.path)
            }
        }
        let pair = PackageKeyPair.generate()
        try pair.save(privateKeyTo: privateURL, publicKeyTo: publicURL)
        print("private key: \(privateURL.path) (keep secret)")
        print("public key:  \(publicURL.path)")
        print("key id:      \(pair.verificationKey.keyID)")
    }

    public init() {}
}
