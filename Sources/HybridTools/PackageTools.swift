import ArgumentParser

/// The commands that need no web view: keys, packages, the update server, remote configuration and the cookie
/// jar. Both executables list them; `hybrid-tools` has nothing else, so it builds and runs where WebKitGTK is
/// not installed (a CI job that signs releases, a server that serves them).
public enum PackageTools {
    public static let commands: [any ParsableCommand.Type] = [
        KeygenCommand.self, PackCommand.self, VerifyCommand.self, DiffCommand.self, PublishCommand.self,
        ServeCommand.self, CookiesCommand.self, ConfigCommand.self,
    ]
}
