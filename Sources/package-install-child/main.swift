// A helper for the crash-safety test: installs one package into a store and, when asked, stops forever at a
// chosen install step so the test can SIGKILL it there.
//
// Usage: package-install-child <store-root> <package.zip> <public-key-file>
// Env:   HYBRID_INSTALL_PAUSE_AT = "file:<n>" | "filesWritten" | "synced" | "committed"
// Prints "PAUSED <step>" on stdout when it stops, "INSTALLED <version>" when it finishes.
import Foundation
import HybridPackages

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(
        Data("usage: package-install-child <store> <package> <public-key>\n".utf8))
    exit(2)
}
let pauseAt =
    ProcessInfo.processInfo.environment["HYBRID_INSTALL_PAUSE_AT"] ?? ""

enum Pause {
    /// Writes unbuffered so the parent sees the line before it kills us.
    static func forever(_ label: String) -> Never {
        FileHandle.standardOutput.write(Data("PAUSED \(label)\n".utf8))
        while true { sleep(60) }
    }
}

do {
    let key = try PackageVerificationKey.load(from: URL(fileURLWithPath: arguments[3]))
    let store = try PackageStore(root: URL(fileURLWithPath: arguments[1]))
    let installer = PackageInstaller(
        store: store, trustedKey: key, containerVersion: SemanticVersion(major: 99, minor: 0, patch: 0),
        hook: { step in
            switch step {
            case .fileWritten(let index, _) where pauseAt == "file:\(index)": Pause.forever(pauseAt)
            case .filesWritten where pauseAt == "filesWritten": Pause.forever(pauseAt)
            case .synced where pauseAt == "synced": Pause.forever(pauseAt)
            case .committed where pauseAt == "committed": Pause.forever(pauseAt)
            default: break
            }
        })
    let installed = try installer.install(packageAt: URL(fileURLWithPath: arguments[2]))
    print("INSTALLED \(installed.version)")
} catch {
    print("FAILED \(error)")
    exit(1)
}
