import ArgumentParser
import Foundation
import HybridUpdateServer
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a directory of packages as an update server (for development and tests).",
        discussion: """
            GET /v1/packages/<id>/latest answers {id, version, full: {url, size, sha256}, diffs: [{from, url, size,
            sha256}]}: the newest full package of <id> in <dir> and the diff packages to that version.
            GET /v1/files/<name> serves a package zip with a strong ETag (its SHA-256), If-None-Match and byte
            Range requests, so downloads resume. The directory is re-read on each request: drop new zips in and
            they are served. Runs until interrupted (Ctrl-C).
            """)

    @Argument(help: "Directory of package zips (full and diff).", completion: .directory)
    var directory: String

    @Option(name: .long, help: "Port to listen on (0: any free port).")
    var port: Int = 8080

    @Option(name: .long, help: "Address to listen on. Keep 127.0.0.1 unless other machines must reach it.")
    var host: String = "127.0.0.1"

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
    }

    func run() async throws {
        global.bootstrapLogging()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
            isDirectory.boolValue
        else { throw PackageCommandError.notADirectory(path: directory) }
        var logger = Logger(label: "hybrid.serve")
        logger.logLevel = global.verbose ? .debug : .warning
        let server = try await UpdateServer.start(
            directory: URL(fileURLWithPath: directory), host: host, port: port, logger: logger)
        let base = server.baseURL.absoluteString
        // Written unbuffered: the URL is what scripts wait for, and a piped stdout would hold it back.
        FileHandle.standardOutput.write(
            Data("serving \(directory) at \(base) (Ctrl-C to stop)\n  latest: \(base)v1/packages/<id>/latest\n".utf8))
        try await server.wait()
    }
}
