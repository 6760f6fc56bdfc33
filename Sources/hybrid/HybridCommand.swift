import ArgumentParser

@main
struct HybridCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid",
        abstract: "HybridKit's command-line tool: tour the bridge in a real WebKitGTK view, and benchmark it.",
        discussion: """
            WebKitGTK needs a display. Without DISPLAY, `hybrid` starts its own Xvfb (apt-get install xvfb xauth).
            """,
        subcommands: [DemoCommand.self, BenchCommand.self])
}
