// Where this build has no WebKitGTK (a Mac today), `demo`, `bench` and `run` stay in `hybrid`'s command list, so
// `hybrid --help` shows them and typing one says why it cannot run here instead of "unknown subcommand". The package
// commands (pack, verify, publish, serve, …) need no engine and work everywhere.
#if !canImport(CWebKitGTK)
import ArgumentParser

// On Linux this file must not be compiled: Package.swift gives `hybrid` WebKitGTK there, and without it the demo,
// the benchmarks and `hybrid run` would silently become these refusals. The Apple layout check
// (scripts/check-apple-layout.sh) builds the Mac's layout here on purpose and says so with this condition.
#if os(Linux) && !HYBRIDKIT_APPLE_LAYOUT
#error("hybrid is built on Linux without WebKitGTK: Package.swift must give it HybridKitGTK on Linux")
#endif

/// A command that drives WebKitGTK, asked for where there is none. Exits with status 1.
enum WebKitGTKRequired: Error, CustomStringConvertible {
    case command(String)

    var description: String {
        switch self {
        case .command(let name):
            "`hybrid \(name)` drives WebKitGTK, which HybridKit supports on Linux only for now: run it on a Linux "
                + "machine (Debian 12: scripts/install-deps.sh installs WebKitGTK). The package commands (pack, "
                + "verify, diff, publish, serve, config, cookies, keygen) work here."
        }
    }
}

/// Accepts whatever the Linux command would, so the answer is always the reason it cannot run here, never a
/// complaint about an option.
protocol LinuxOnlyCommand: ParsableCommand {
    var arguments: [String] { get }
}

extension LinuxOnlyCommand {
    func run() throws {
        throw WebKitGTKRequired.command(Self.configuration.commandName ?? "")
    }
}

struct DemoCommand: LinuxOnlyCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Tour HybridKit in WebKitGTK (Linux only for now).")

    @Argument(parsing: .allUnrecognized, help: .hidden) var arguments: [String] = []
}

struct RunCommand: LinuxOnlyCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Open an app in a WebKitGTK window (Linux only for now).")

    @Argument(parsing: .allUnrecognized, help: .hidden) var arguments: [String] = []
}

struct BenchCommand: LinuxOnlyCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Benchmarks in WebKitGTK (Linux only for now).")

    @Argument(parsing: .allUnrecognized, help: .hidden) var arguments: [String] = []
}
#endif
