import Foundation
import Hummingbird
import Logging

/// A static-file HTTP server on 127.0.0.1 with an OS-chosen port: the "other origin" of the demo and
/// the tests. Runs until ``stop()`` (or the process ends).
public final class LoopbackServer: Sendable {
    public let port: Int
    /// The loopback address it listens on (127.0.0.1 unless asked for another, e.g. 127.0.0.2 as a second host).
    public let host: String
    private let task: Task<Void, any Error>

    public var origin: String { "http://\(host):\(port)" }

    private init(port: Int, host: String, task: Task<Void, any Error>) {
        self.port = port
        self.host = host
        self.task = task
    }

    /// Serves the files under `root`, with extra routes added by `configure`.
    public static func start(
        serving root: URL, host: String = "127.0.0.1",
        configure: @Sendable (Router<BasicRequestContext>) -> Void = { _ in }
    ) async throws -> LoopbackServer {
        let router = Router()
        router.middlewares.add(FileMiddleware(root.path, searchForIndexHtml: true))
        configure(router)
        var logger = Logger(label: "hybrid.loopback")
        logger.logLevel = .warning
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger)
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw LoopbackServerError.didNotStart
        }
        return LoopbackServer(port: port, host: host, task: task)
    }

    public func stop() { task.cancel() }
}

public enum LoopbackServerError: Error, CustomStringConvertible {
    case didNotStart
    public var description: String { "the loopback HTTP server did not start listening on 127.0.0.1" }
}
