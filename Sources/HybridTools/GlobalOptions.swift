import ArgumentParser
import Logging

/// Options every subcommand shares.
public struct GlobalOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log what the bridge, the engine and the servers do (to standard error).")
    public var verbose = false

    public init() {}

    /// Logs go to standard error; without --verbose only failures the user must act on.
    public func bootstrapLogging() {
        let level: Logger.Level = verbose ? .debug : .critical
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
