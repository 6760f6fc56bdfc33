import ArgumentParser
import Logging

@main
struct HybridCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid",
        abstract:
            "HybridKit's command-line tool: tour and benchmark the bridge; build, sign, check and serve offline packages; debug cookies.",
        discussion: """
            WebKitGTK (demo, bench) needs a display. Without DISPLAY, `hybrid` starts its own Xvfb (apt-get install xvfb xauth).
            """,
        subcommands: [
            DemoCommand.self, BenchCommand.self, KeygenCommand.self, PackCommand.self, VerifyCommand.self,
            DiffCommand.self, ServeCommand.self, CookiesCommand.self, ConfigCommand.self,
        ])
}

/// Options every subcommand shares.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log what the bridge, the engine and the servers do (to standard error).")
    var verbose = false

    /// Logs go to standard error; without --verbose only failures the user must act on.
    func bootstrapLogging() {
        let level: Logger.Level = verbose ? .debug : .critical
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
