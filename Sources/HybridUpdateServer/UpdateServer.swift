import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The update server behind `hybrid serve`, over a directory of package zips:
/// - `GET /v1/packages/<id>/latest` → `ReleaseDocument` JSON (newest full package + diffs to it), 404 if unknown;
/// - `GET /v1/files/<name>` → the zip, with a strong ETag, `If-Match`/`If-None-Match`/`If-Range` and `Range`.
///
/// `HEAD` answers every `GET` route with the same status and headers and no body. An HTTP/1.1 request without
/// `Host`, or any request with two, is a 400 (RFC 9112 §3.2), and a client gets `headerTimeout` to send each
/// request head before its connection is closed.
///
/// Runs until `stop()` or the end of the process. Tests start it on port 0 and read `port`.
public final class UpdateServer: Sendable {
    public let host: String
    public let port: Int
    private let task: Task<Void, any Error>

    /// `http://<host>:<port>/`, what `HTTPUpdateClient(baseURL:)` takes.
    public var baseURL: URL {
        URL(string: "http://\(host):\(port)/") ?? URL(fileURLWithPath: "/")
    }

    private init(host: String, port: Int, task: Task<Void, any Error>) {
        self.host = host
        self.port = port
        self.task = task
    }

    /// What `start` gives a client to send a request head when not told otherwise.
    public static let defaultHeaderTimeout: Duration = .seconds(10)

    /// Starts listening on `host:port` (port 0: any free port) and returns once the socket is bound.
    ///
    /// `headerTimeout` bounds the time to receive each request head in full: from the connection opening, or
    /// from the end of the previous answer on a kept-alive connection, to the head's last byte. It is
    /// Hummingbird's `idleTimeout`, which is a deadline rather than an idle timer: it counts decoded HTTP parts,
    /// not bytes, so a head trickled a byte at a time never resets it, and it never fires while an answer is
    /// being written (a slow download is not cut off).
    ///
    /// `eventLoopGroup`: NIO's shared group by default; give the server a group of its own where other work
    /// in the process may hold the shared one's threads (its timeouts run there).
    public static func start(
        directory: URL, host: String = "127.0.0.1", port: Int = 0, headerTimeout: Duration = defaultHeaderTimeout,
        eventLoopGroup: (any EventLoopGroup)? = nil, logger: Logger? = nil
    ) async throws -> UpdateServer {
        let logger = logger ?? Self.quietLogger()
        let catalog = PackageCatalog(directory: directory, logger: logger)
        // Fail now, with the directory's name, rather than on the first request.
        _ = try await catalog.entries()
        let router = makeRouter(catalog: catalog)
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let timeout = TimeAmount.nanoseconds(
            headerTimeout.components.seconds * 1_000_000_000 + headerTimeout.components.attoseconds / 1_000_000_000)
        let server = HTTPServerBuilder { responder in
            HTTP1ServerChannel(
                inner: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: timeout)))
        }
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            eventLoopGroupProvider: eventLoopGroup.map { .shared($0) } ?? .singleton,
            logger: logger)
        let task = Task {
            // If binding fails, onServerRunning never runs: end the stream so `start` does not wait forever.
            defer { portSink.finish() }
            try await app.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0 else {
            task.cancel()
            throw UpdateServerError.didNotStart(host: host, port: port)
        }
        return UpdateServer(host: host, port: bound, task: task)
    }

    /// Waits until the server stops (it only stops when cancelled or when it fails).
    public func wait() async throws { try await task.value }

    public func stop() { task.cancel() }

    static func makeRouter(catalog: PackageCatalog) -> Router<BasicRequestContext> {
        // HEAD on every GET route: the GET handler's status and headers, its body dropped (and never read).
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.add(middleware: RejectMarkedRequests())
        let files = PackageFileResponder()
        router.get("/v1/packages/:id/latest") { _, context -> Response in
            let id = try context.parameters.require("id")
            let entries = try await catalog.entries()
            guard let document = ReleaseListing.latest(id: id, in: entries) else {
                return jsonResponse(status: .notFound, ["error": "no full package of '\(id)' in this directory"])
            }
            return jsonResponse(status: .ok, document)
        }
        router.get("/v1/files/:name") { request, context -> Response in
            let raw = try context.parameters.require("name")
            let name = raw.removingPercentEncoding ?? raw
            // Only names of catalogued packages are served, so no path can escape the directory.
            guard let entry = try await catalog.entries()[name] else {
                return jsonResponse(status: .notFound, ["error": "no package file named '\(name)'"])
            }
            return try await files.respond(
                to: request, entry: entry, includeBody: request.method != .head, context: context)
        }
        let tree = ReleaseTreeFiles(root: catalog.directory)
        // The release tree `hybrid publish` writes (docs/release-channel.md), when the directory is one.
        router.get("/files/:name") { request, context -> Response in
            guard let file = tree.packageFile(named: try context.parameters.require("name")) else {
                return jsonResponse(status: .notFound, ["error": "no such file in the release tree"])
            }
            return try await files.respond(
                to: request, file: file, includeBody: request.method != .head, context: context)
        }
        router.get("/channels/:channel/:name") { request, context -> Response in
            guard
                let file = tree.indexFile(
                    channel: try context.parameters.require("channel"), name: try context.parameters.require("name"))
            else { return jsonResponse(status: .notFound, ["error": "no such index in the release tree"]) }
            return try await files.respond(
                to: request, file: file, includeBody: request.method != .head, context: context)
        }
        return router
    }

    static func jsonResponse(status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Answers the requests `HostHeaderCheck` marked with a 400 (the connection then closes: the mark comes with
    /// `Connection: close`). Runs before routing, so it covers every path.
    struct RejectMarkedRequests: RouterMiddleware {
        typealias Context = BasicRequestContext

        func handle(
            _ request: Request, context: Context, next: (Request, Context) async throws -> Response
        ) async throws -> Response {
            let marker = HostHeaderCheck.rejectionHeader.lowercased()
            guard let reason = request.headers.first(where: { $0.name.canonicalName == marker })?.value else {
                return try await next(request, context)
            }
            var response = jsonResponse(status: .badRequest, ["error": "bad request: \(reason)"])
            response.headers[.connection] = "close"
            return response
        }
    }

    /// Without a logger from the caller, only critical messages: `stop()` cancels the server, and Hummingbird
    /// logs that cancellation as an error, which would bury test output. `hybrid serve` passes its own.
    private static func quietLogger() -> Logger {
        var logger = Logger(label: "hybrid.update-server")
        logger.logLevel = .critical
        return logger
    }
}
