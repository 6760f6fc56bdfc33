// A helper for tests that must survive what they test, run as a child process:
//
// 1. The crash-safety test: installs one package into a store and, when asked, stops forever at a chosen install
//    step so the test can SIGKILL it there.
//    Usage: package-install-child <store-root> <package.zip> <public-key-file>
//    Env:   HYBRID_INSTALL_PAUSE_AT = "file:<n>" | "filesWritten" | "synced" | "committed"
//    Prints "PAUSED <step>" on stdout when it stops, "INSTALLED <version>" when it finishes.
//
// 2. The hostile-archive tests: reads a package the way `hybrid verify` (verify), `hybrid serve` (inspect, no
//    key) and the updater (install, when a store is given) do, under a memory and CPU limit, so a trap or an
//    endless loop in the zip reader ends this process and not the test run.
//    Usage: package-install-child read <package.zip> <public-key-file> [<store-root>]
//    Env:   HYBRID_CHILD_MAX_MEMORY_MB (address space, default 2048), HYBRID_CHILD_MAX_CPU_SECONDS (default 20)
//    Prints one line per operation, "<VERIFY|INSPECT|INSTALL> ok <version>" or
//    "<VERIFY|INSPECT|INSTALL> refused <case>[.<inner case>] <description>", then "DONE".
//
// 3. The boot-safety test: records an open of a package on trial (what a container does before loading the page),
//    prints "OPENED <version> onTrial=<true|false>" and stops forever, so the test can SIGKILL it mid-open.
//    Usage: package-install-child trial-open <store-root> <id>
//
// 4. The boot-safety update test: updates a package with `PackageUpdater` and a `BootGuard`, from a package file
//    given with its release, and stops forever at a chosen step (an install step, "trialRecorded" or "activated")
//    so the test can SIGKILL it there. Prints "PAUSED <step>" when it stops, "UPDATED <outcome>" when it finishes.
//    Usage: package-install-child update <store-root> <package.zip> <public-key-file> <id> <version> <sha256>
//    Env:   HYBRID_INSTALL_PAUSE_AT as for 1, or "trialRecorded"
import Foundation
import HybridPackages

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes unbuffered so the parent sees each line even if the process dies right after.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

enum Pause {
    static func forever(_ label: String) -> Never {
        emit("PAUSED \(label)")
        while true { sleep(60) }
    }
}

/// The enum case of an error (and of the error it wraps), so the parent can assert outcomes precisely.
func caseName(_ value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .enum else { return String(describing: type(of: value)) }
    guard let child = mirror.children.first, let label = child.label else {
        // A case without a payload: its name is what `String(reflecting:)` would show without a description.
        switch value {
        case PackageError.missingManifest: return "missingManifest"
        case PackageError.missingSignature: return "missingSignature"
        case PackageError.signatureInvalid: return "signatureInvalid"
        default: return "\(value)"
        }
    }
    if let inner = child.value as? any Error {
        let innerMirror = Mirror(reflecting: inner)
        if innerMirror.displayStyle == .enum { return label + "." + caseName(inner) }
    }
    return label
}

func limitResources() {
    let environment = ProcessInfo.processInfo.environment
    let megabytes = environment["HYBRID_CHILD_MAX_MEMORY_MB"].flatMap(UInt64.init) ?? 2048
    let seconds = environment["HYBRID_CHILD_MAX_CPU_SECONDS"].flatMap(UInt64.init) ?? 20
    var memory = rlimit(rlim_cur: rlim_t(megabytes * 1024 * 1024), rlim_max: rlim_t(megabytes * 1024 * 1024))
    var cpu = rlimit(rlim_cur: rlim_t(seconds), rlim_max: rlim_t(seconds + 1))
    #if canImport(Glibc)
    setrlimit(Int32(RLIMIT_AS.rawValue), &memory)
    setrlimit(Int32(RLIMIT_CPU.rawValue), &cpu)
    #else
    setrlimit(RLIMIT_AS, &memory)
    setrlimit(RLIMIT_CPU, &cpu)
    #endif
}

func report(_ operation: String, _ body: () throws(PackageError) -> SemanticVersion) {
    do {
        let version = try body()
        emit("\(operation) ok \(version)")
    } catch {
        let description = error.description.replacingOccurrences(of: "\n", with: " ")
        emit("\(operation) refused \(caseName(error)) \(description)")
    }
}

func read(arguments: [String]) -> Never {
    guard arguments.count == 4 || arguments.count == 5 else {
        FileHandle.standardError.write(
            Data("usage: package-install-child read <package> <public-key> [<store>]\n".utf8))
        exit(2)
    }
    limitResources()
    let package = URL(fileURLWithPath: arguments[2])
    let key: PackageVerificationKey
    do { key = try PackageVerificationKey.load(from: URL(fileURLWithPath: arguments[3])) } catch {
        emit("SETUP failed \(error)")
        exit(2)
    }
    report("VERIFY") { () throws(PackageError) in
        try PackageVerifier(trustedKey: key).verify(packageAt: package).version
    }
    report("INSPECT") { () throws(PackageError) in
        try PackageInspector().inspect(packageAt: package).manifest.version
    }
    if arguments.count == 5 {
        report("INSTALL") { () throws(PackageError) in
            let store = try PackageStore(root: URL(fileURLWithPath: arguments[4]))
            let installer = PackageInstaller(
                store: store, trustedKey: key, containerVersion: SemanticVersion(major: 99, minor: 0, patch: 0))
            return try installer.install(packageAt: package).version
        }
    }
    emit("DONE")
    exit(0)
}

func trialOpen(arguments: [String]) -> Never {
    guard arguments.count == 4 else {
        FileHandle.standardError.write(Data("usage: package-install-child trial-open <store> <id>\n".utf8))
        exit(2)
    }
    do {
        let store = try PackageStore(root: URL(fileURLWithPath: arguments[2]))
        switch try BootGuard(store: store).willOpen(arguments[3]) {
        case .serve(let version, let onTrial): Pause.forever("OPENED \(version) onTrial=\(onTrial)")
        case .rolledBack(let from, let to, let reason): emit("ROLLEDBACK \(from) \(to) \(reason.rawValue)")
        }
    } catch {
        emit("FAILED \(error)")
    }
    exit(1)
}

/// Serves one release from a local file, as an update server would.
struct FileUpdateClient: UpdateClient {
    let release: PackageRelease
    let file: URL

    func latestRelease(for id: String) async throws -> PackageRelease? { id == release.id ? release : nil }

    func fetch(_ artifact: PackageArtifact, range: Range<Int64>) async throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(range.lowerBound))
        return [UInt8](try handle.read(upToCount: range.count) ?? Data())
    }
}

/// Stops at `step` when it is the one HYBRID_INSTALL_PAUSE_AT names.
func pause(at step: String) {
    if ProcessInfo.processInfo.environment["HYBRID_INSTALL_PAUSE_AT"] == step { Pause.forever(step) }
}

func installStepName(_ step: InstallStep) -> String {
    switch step {
    case .verified: "verified"
    case .stagingCreated: "stagingCreated"
    case .fileWritten(let index, _): "file:\(index)"
    case .filesWritten: "filesWritten"
    case .synced: "synced"
    case .committed: "committed"
    case .activated: "activated"
    }
}

func update(arguments: [String]) async -> Never {
    guard arguments.count == 8, let version = SemanticVersion(arguments[6]) else {
        FileHandle.standardError.write(
            Data("usage: package-install-child update <store> <package> <public-key> <id> <version> <sha256>\n".utf8))
        exit(2)
    }
    do {
        let file = URL(fileURLWithPath: arguments[3])
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64 ?? 0
        let key = try PackageVerificationKey.load(from: URL(fileURLWithPath: arguments[4]))
        let store = try PackageStore(root: URL(fileURLWithPath: arguments[2]))
        let installer = PackageInstaller(
            store: store, trustedKey: key, containerVersion: SemanticVersion(major: 99, minor: 0, patch: 0),
            hook: { step in pause(at: installStepName(step)) })
        let release = PackageRelease(
            id: arguments[5], version: version,
            full: PackageArtifact(location: "full", size: size, sha256: arguments[7]))
        var updater = PackageUpdater(installer: installer, client: FileUpdateClient(release: release, file: file))
        updater.bootGuard = BootGuard(
            store: store,
            hook: { step in
                switch step {
                case .trialRecorded: pause(at: "trialRecorded")
                case .activated: pause(at: "activated")
                }
            })
        emit("UPDATED \(try await updater.update(arguments[5]))")
        exit(0)
    } catch {
        emit("FAILED \(error)")
        exit(1)
    }
}

let arguments = CommandLine.arguments
if arguments.count > 1 && arguments[1] == "update" { await update(arguments: arguments) }
if arguments.count > 1 && arguments[1] == "read" { read(arguments: arguments) }
if arguments.count > 1 && arguments[1] == "trial-open" { trialOpen(arguments: arguments) }
guard arguments.count == 4 else {
    FileHandle.standardError.write(
        Data(
            "usage: package-install-child <store> <package> <public-key> | read <package> <public-key> [<store>]\n"
                .utf8))
    exit(2)
}
let pauseAt =
    ProcessInfo.processInfo.environment["HYBRID_INSTALL_PAUSE_AT"] ?? ""

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
