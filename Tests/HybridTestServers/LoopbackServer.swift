#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A static-file HTTP server on 127.0.0.1 with an OS-chosen port: the "other origin" of the demo and
/// the tests. Runs until ``stop()`` (or the process ends).
public final class LoopbackServer: Sendable {
    public let port: Int
    /// The loopback address it listens on (127.0.0.1 unless asked for another, e.g. 127.0.0.2 as a second host).
    public let host: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// How long a graceful shutdown may wait for open connections before the server is cancelled.
    static let shutdownGrace: Duration = .seconds(5)

    public var origin: String { "http://\(host):\(port)" }

    private init(port: Int, host: String, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.host = host
        self.group = group
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
        // Run in a group of our own (no signal handlers: the process's signals stay the host's), so that
        // stopping is a graceful shutdown: cancelling Hummingbird's run logs "Waiting on child channel:
        // CancellationError()" as an error on every normal stop.
        let group = ServiceGroup(services: [app], logger: logger)
        let task = Task {
            // If binding fails, onServerRunning never runs: end the stream so `start` does not wait forever.
            defer { portSink.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw LoopbackServerError.didNotStart
        }
        return LoopbackServer(port: port, host: host, group: group, task: task)
    }

    /// Starts a graceful shutdown (the listener closes, open connections finish) and returns at once;
    /// a server still running after ``shutdownGrace`` is cancelled.
    public func stop() {
        Task { await shutdown() }
    }

    /// Shuts down gracefully and waits until the server has stopped (cancelling it after ``shutdownGrace``).
    public func shutdown() async {
        await group.triggerGracefulShutdown()
        let task = self.task
        let deadline = Task {
            try await Task.sleep(for: Self.shutdownGrace)
            task.cancel()
        }
        _ = try? await task.value
        deadline.cancel()
    }
}

public enum LoopbackServerError: Error, CustomStringConvertible {
    case didNotStart
    public var description: String { "the loopback HTTP server did not start listening on 127.0.0.1" }
}
#endif
