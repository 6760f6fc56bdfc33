import ArgumentParser
import Foundation
import HybridKit
import HybridPackages

public struct ConfigCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Sign and check remote configurations (degrade list, hook switches, bridge permissions, scripts).",
        discussion: "The format is described in docs/remote-config.md. Keys come from `hybrid keygen`.",
        subcommands: [ConfigSignCommand.self, ConfigVerifyCommand.self])

    public init() {}
}

struct ConfigSignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Check a configuration document and write it signed.",
        discussion: """
            Refuses a document that does not parse, names an invalid degrade prefix, has a script whose source does
            not match its sha256, or has already expired. Prints the version and the key id.
            """)

    @Argument(help: "The configuration document (JSON).", completion: .file(extensions: ["json"]))
    var document: String

    @Option(name: .long, help: "Private key file from `hybrid keygen`.", completion: .file(extensions: ["private"]))
    var key: String

    @Option(name: .shortAndLong, help: "Where to write the signed configuration.")
    var out: String

    @Flag(name: .long, help: "Replace an existing output file.")
    var force = false

    func run() throws {
        guard FileManager.default.fileExists(atPath: document) else {
            throw PackageCommandError.fileMissing(path: document)
        }
        if !force, FileManager.default.fileExists(atPath: out) { throw PackageCommandError.wouldOverwrite(path: out) }
        let pair = try PackageKeyPair.load(privateKeyFrom: URL(fileURLWithPath: key))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: document))
        let signed = try SignedConfig.sign(document: bytes, with: pair)
        let config = try SignedConfig.decodeDocument(bytes)
        try signed.write(to: URL(fileURLWithPath: out), options: .atomic)
        print("version: \(config.version)")
        print("key id:  \(pair.verificationKey.keyID)")
        print("signed:  \(out)")
    }
}

struct ConfigVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a signed configuration the way the app does, and print what it sets.")

    @Argument(help: "The signed configuration.", completion: .file(extensions: ["json"]))
    var signed: String

    @Option(name: .long, help: "Public key file the app trusts.", completion: .file(extensions: ["public"]))
    var key: String

    func run() throws {
        guard FileManager.default.fileExists(atPath: signed) else {
            throw PackageCommandError.fileMissing(path: signed)
        }
        let trusted = try PackageVerificationKey.load(from: URL(fileURLWithPath: key))
        let config = try SignedConfig.open(Data(contentsOf: URL(fileURLWithPath: signed)), trusting: trusted)
        print("version:  \(config.version)")
        print("degraded: \(config.degradedPrefixes.count)")
        print(
            "hooks:    \(config.hooks.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        )
        print("bridge:   \(config.bridgePermissions.count) modules")
        print("scripts:  \(config.scripts.map(\.name).joined(separator: ", "))")
        print("OK")
    }
}
