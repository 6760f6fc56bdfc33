import ArgumentParser
import Foundation
import HybridPackages

public struct PublishCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Add packages to a static release tree that any web server, object store or CDN can serve.",
        discussion: """
            Writes files/<sha256>.zip (full packages, and diffs to each new version from recent releases: immutable,
            cache them forever) and channels/<channel>/<id>.json, an index signed with --release-key that carries
            a sequence one above the tree's current index and an expiry. Clients refuse an older sequence and an
            expired index, so re-sign before it runs out: `hybrid publish --refresh --out <dir> --release-key …`.
            Publishing a version already listed with the same bytes changes only its rollout and minimum host
            version (how a staged rollout is widened). Protocol: docs/release-channel.md.
            """)

    @Argument(help: "Full packages (from `hybrid pack`) to publish.", completion: .file(extensions: ["zip"]))
    var packages: [String] = []

    @Option(name: .long, help: "The release tree's directory (created if missing).")
    var out: String

    @Option(
        name: .customLong("release-key"), help: "Private key that signs indexes (`hybrid keygen`; not a package key).",
        completion: .file(extensions: ["private"]))
    var releaseKey: String

    @Option(
        name: .customLong("package-key"),
        help:
            "Private package key: verifies the packages and signs the diffs built from them (not needed with --refresh).",
        completion: .file(extensions: ["private"]))
    var packageKey: String?

    @Option(name: .long, help: "Channel to publish on (e.g. production, beta).")
    var channel: String = "production"

    @Option(name: .long, help: "Percentage of installs offered these versions (0–100).")
    var rollout: Int = 100

    @Option(name: .customLong("min-host-version"), help: "Oldest host-app version that may take these versions.")
    var minHostVersion: SemanticVersion?

    @Option(name: .customLong("expires-in"), help: "Hours until clients refuse the index unless re-signed.")
    var expiresIn: Double = 168

    @Option(name: .customLong("diffs"), help: "Build diffs to each new version from this many earlier releases.")
    var diffBases: Int = 3

    @Option(name: .customLong("keep"), help: "Releases listed per index, newest first.")
    var keepReleases: Int = 5

    @Flag(
        name: .long, inversion: .prefixedNo,
        help:
            "Also build diffs with binary deltas (listed apart, for clients that read them); --no-deltas builds plain diffs only."
    )
    var deltas = true

    @Flag(name: .long, help: "Only re-sign the channel's indexes with a new sequence and expiry.")
    var refresh = false

    public func validate() throws {
        if refresh {
            guard packages.isEmpty else { throw ValidationError("--refresh takes no packages") }
        } else {
            guard !packages.isEmpty else { throw ValidationError("give at least one package, or --refresh") }
            guard packageKey != nil else { throw ValidationError("--package-key is needed to publish packages") }
        }
        guard expiresIn.isFinite, expiresIn > 0 else {
            throw ValidationError("--expires-in must be a positive number of hours")
        }
    }

    public func run() throws {
        for path in packages where !FileManager.default.fileExists(atPath: path) {
            throw PackageCommandError.fileMissing(path: path)
        }
        let releasePair = try PackageKeyPair.load(privateKeyFrom: URL(fileURLWithPath: releaseKey))
        let packagePair = try packageKey.map { path throws(KeyFileError) in
            try PackageKeyPair.load(privateKeyFrom: URL(fileURLWithPath: path))
        }
        let root = URL(fileURLWithPath: out)
        let validity = expiresIn * 3600
        let published: [ReleasePublisher.Published]
        if refresh {
            published = try ReleasePublisher(packageKey: releasePair, releaseKey: releasePair)
                .refresh(root, channel: channel, validity: validity)
        } else {
            published = try ReleasePublisher(packageKey: packagePair ?? releasePair, releaseKey: releasePair)
                .publish(
                    packages.map { URL(fileURLWithPath: $0) }, to: root,
                    options: ReleasePublisher.Options(
                        channel: channel, rollout: rollout, minimumHostVersion: minHostVersion, validity: validity,
                        diffBases: diffBases, keepReleases: keepReleases, deltas: deltas))
        }
        for index in published {
            let versions = index.versions.isEmpty ? "re-signed" : index.versions.joined(separator: ", ")
            print(
                "\(index.id) on \(channel): sequence \(index.sequence), \(versions), \(index.diffs) diffs → \(index.path)"
            )
        }
    }

    public init() {}
}
