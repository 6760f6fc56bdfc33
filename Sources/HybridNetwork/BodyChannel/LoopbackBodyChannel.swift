import Foundation
import HybridKit
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The body channel's listener: HTTP/1.1 on 127.0.0.1 and ::1, one random port, for the life of a container or
/// pool. `BodyChannelRoutes` (HybridKit) makes every decision; this type carries bytes and enforces time.
///
/// Other local processes can reach a loopback port, so nothing is read from an upload before its head passed the
/// routes (key, origin, reserved body, length), a refusal closes the connection unread, and an upload that stalls
/// or takes too long is cut and its body dropped. The connections it holds are bounded (``Limits/maxConnections``,
/// the longest-waiting head dropped first) and every head has a deadline (``Limits/headTimeout``), so a process
/// holding connections open cannot take the app's descriptors or keep real uploads out.
public final class LoopbackBodyChannel: BodyChannel {
    public struct Limits: Sendable, Equatable {
        /// Longest time without a byte from the sender (before or during an upload).
        public var idleTimeout: Duration
        /// Longest time one upload may take from its head to its last byte.
        public var uploadTimeout: Duration
        /// Longest time from connecting (or from the end of the previous request) to a whole request head; for a
        /// preflight, to its end. The hooks' XHR sends its head at once: only a sender dripping bytes takes longer.
        public var headTimeout: Duration
        /// Most connections served at once. When all are taken, the one waiting longest for a head goes first;
        /// connections carrying an upload stay, and a new connection is closed at once when every one does. The
        /// engine opens a few connections per page; 32 leaves room for several pages uploading together.
        public var maxConnections: Int

        public init(
            idleTimeout: Duration = .seconds(10), uploadTimeout: Duration = .seconds(120),
            headTimeout: Duration = .seconds(10), maxConnections: Int = 32
        ) {
            self.idleTimeout = idleTimeout
            self.uploadTimeout = uploadTimeout
            self.headTimeout = headTimeout
            self.maxConnections = maxConnections
        }
    }

    public enum StartError: Error, CustomStringConvertible {
        case cannotListen(String)
        public var description: String {
            switch self {
            case .cannotListen(let why):
                "the body channel could not listen on loopback (\(why)); pages upload bodies in slices instead"
            }
        }
    }

    public let routes: BodyChannelRoutes
    public let port: Int
    public let limits: Limits
    /// Whether it also listens on ::1 (a machine without IPv6 loopback has IPv4 only).
    public let listensOnIPv6: Bool
    private let acceptor: LoopbackAcceptor
    private let gate: BodyChannelGate
    private let listening = Atomic<Bool>(true)

    public var endpoint: String? { listening.load(ordering: .acquiring) ? "http://127.0.0.1:\(port)" : nil }

    /// Connections held right now, served or being closed (for tests and diagnostics): never more than twice
    /// ``Limits/maxConnections``.
    public var connectionsHeld: Int { gate.held }

    private init(routes: BodyChannelRoutes, limits: Limits, acceptor: LoopbackAcceptor, gate: BodyChannelGate) {
        self.routes = routes
        self.limits = limits
        self.acceptor = acceptor
        self.gate = gate
        port = acceptor.port
        listensOnIPv6 = acceptor.listensOnIPv6
    }

    /// Listens on a random port of 127.0.0.1, and on the same port of ::1 where the machine has it.
    public static func start(
        limits: Limits = Limits(), routes: BodyChannelRoutes = BodyChannelRoutes()
    ) throws(StartError) -> LoopbackBodyChannel {
        try start(limits: limits, routes: routes, deferAccept: true)
    }

    /// `deferAccept: false` runs the channel as on Darwin, where the kernel hands over connections before they
    /// send anything (for tests on Linux).
    static func start(
        limits: Limits, routes: BodyChannelRoutes, deferAccept: Bool
    ) throws(StartError) -> LoopbackBodyChannel {
        let acceptor: LoopbackAcceptor
        do {
            acceptor = try LoopbackAcceptor(deferAccept: deferAccept)
        } catch {
            throw .cannotListen("\(error)")
        }
        let gate = BodyChannelGate(capacity: limits.maxConnections)
        let channel = LoopbackBodyChannel(routes: routes, limits: limits, acceptor: acceptor, gate: gate)
        let port = acceptor.port
        let serve: @Sendable (Int32, BodyChannelGate.Admission) -> Void = { descriptor, admission in
            guard case .admitted(let slot, let evicting) = admission else {
                close(descriptor)
                return
            }
            evicting?.pipeline.fireUserInboundEventTriggered(BodyChannelConnection.Evicted())
            connectionBootstrap(routes: routes, limits: limits, port: port, gate: gate, slot: slot)
                .withConnectedSocket(descriptor)
                .whenFailure { _ in
                    gate.remove(slot)
                    close(descriptor)
                }
        }
        // Decided on the accepting thread, before NIO: a refused connection costs a close and nothing more.
        acceptor.run(
            LoopbackAcceptor.Owner(
                accepted: { descriptor in
                    let admission = gate.admit(ready: LoopbackAcceptor.hasWholeHead(descriptor))
                    if case .lookAgain = admission { return .waitForData }
                    serve(descriptor, admission)
                    return .taken
                },
                readable: { descriptor in
                    serve(descriptor, gate.admit(ready: LoopbackAcceptor.hasWholeHead(descriptor), looked: true))
                },
                abandoned: { gate.lookAbandoned(stopping: $0) },
                waitLimit: Self.waitForFirstBytes,
                maxWaiting: max(limits.maxConnections / 2, 1)))
        return channel
    }

    /// How long a connection accepted before its first bytes is held for them when no slot is free for it: a real
    /// client writes its head right after connecting.
    static let waitForFirstBytes: Duration = .milliseconds(250)

    /// Stops listening (as iOS does for a suspended app); pages fall back to uploading in slices. Open
    /// connections finish. The pages registered here are told the channel is gone: another process may take the
    /// port from now on, and must not be sent their key or a body.
    public func stop() {
        guard listening.exchange(false, ordering: .acquiringAndReleasing) else { return }
        acceptor.stop()
        routes.channelClosed("http://127.0.0.1:\(port)")
    }

    deinit { stop() }

    private static func connectionBootstrap(
        routes: BodyChannelRoutes, limits: Limits, port: Int, gate: BodyChannelGate, slot: BodyChannelGate.Slot
    ) -> ClientBootstrap {
        ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            // Bodies are megabytes: reads of up to 1 MiB (NIO's default stops at 64 KiB) mean fewer trips through
            // the pipeline per body.
            .channelOption(
                .recvAllocator,
                value: AdaptiveRecvByteBufferAllocator(minimum: 16 << 10, initial: 256 << 10, maximum: 256 << 10)
            )
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        IdleStateHandler(readTimeout: TimeAmount(limits.idleTimeout)))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: false, withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(
                        BodyChannelConnection(
                            routes: routes, port: port, uploadTimeout: limits.uploadTimeout,
                            headTimeout: limits.headTimeout, gate: gate, slot: slot))
                }
            }
    }
}
