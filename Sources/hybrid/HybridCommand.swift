import ArgumentParser
import HybridTools

@main
struct HybridCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid",
        abstract:
            "HybridKit's command-line tool: run an app; tour and benchmark the bridge; type an app's modules for its pages; build, sign, check and serve offline packages; debug cookies.",
        discussion: """
            WebKitGTK (demo, bench, run) needs a display. Without DISPLAY, `hybrid` starts its own Xvfb (apt-get install xvfb xauth);
            `hybrid run` does so only for --screenshot.
            The package tools alone, without WebKitGTK, are the `hybrid-tools` executable.
            """,
        subcommands: [DemoCommand.self, RunCommand.self, BenchCommand.self, TypesCommand.self] + PackageTools.commands)
}
