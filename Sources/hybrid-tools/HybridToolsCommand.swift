import ArgumentParser
import HybridTools

@main
struct HybridToolsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid-tools",
        abstract:
            "HybridKit's package tools without a web engine: keys, offline packages, the update server, remote configuration, cookies.",
        discussion: """
            The same commands as `hybrid`, built without WebKitGTK, for machines that sign, check and serve releases.
            `hybrid` adds the demo and the benchmarks, which drive the engine.
            """,
        subcommands: PackageTools.commands)
}
