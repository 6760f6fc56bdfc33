import ArgumentParser
import Foundation
import HybridUpdateServer
import Logging

public struct ServeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a directory of packages as an update server (for development and tests).",
        discussion: """
            GET /v1/packages/<id>/latest answers {id, version, full: {url, size, sha256}, diffs: [{from, url, size,
            sha256}]}: the newest full package of <id> in <dir> and the diff packages to that version.
            GET /v1/files/<name> serves a package zip with a strong ETag (its SHA-256), If-Match (412),
            If-None-Match (304), byte Range requests and If-Range, so downloads resume and a resume across a
            changed file gets the whole new file. HEAD works on both routes. HTTP/1.1 requests without one Host
            header get 400. The directory is re-read on each request: drop new zips in and they are served; files
            that are not readable packages are skipped. Runs until interrupted (Ctrl-C).
            When <dir> is a release tree from `hybrid publish`, it is also served as one, the way a CDN would:
            GET /channels/<channel>/<id>.json (ETag = SHA-256 of the index, 304 on If-None-Match) and
            GET /files/<sha256>.zip (ranges, immutable); see docs/release-channel.md.
            """)

    @Argument(help: "Directory of package zips (full and diff).", completion: .directory)
    var directory: String

    @Option(name: .long, help: "Port to listen on (0: any free port).")
    var port: Int = 8080

    @Option(name: .long, help: "Address to listen on. Keep 127.0.0.1 unless other machines must reach it.")
    var host: String = "127.0.0.1"

    @Option(
        name: .long,
        help: "Seconds a client has to send each request's headers before its connection is closed (slowloris).")
    var headerTimeout: Double = 10

    @OptionGroup var global: GlobalOptions

    public func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard headerTimeout > 0, headerTimeout <= 3600 else {
            throw ValidationError("--header-timeout must be more than 0 and at most 3600 seconds")
        }
    }

    public func run() async throws {
        global.bootstrapLogging()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory),
            isDirectory.boolValue
        else { throw PackageCommandError.notADirectory(path: directory) }
        var logger = Logger(label: "hybrid.serve")
        logger.logLevel = global.verbose ? .debug : .warning
        let server = try await UpdateServer.start(
            directory: URL(fileURLWithPath: directory), host: host, port: port,
            headerTimeout: .milliseconds(Int((headerTimeout * 1000).rounded())), logger: logger)
        let base = server.baseURL.absoluteString
        // Written unbuffered: the URL is what scripts wait for, and a piped stdout would hold it back.
        FileHandle.standardOutput.write(
            Data("serving \(directory) at \(base) (Ctrl-C to stop)\n  latest: \(base)v1/packages/<id>/latest\n".utf8))
        try await server.wait()
    }

    public init() {}
}
