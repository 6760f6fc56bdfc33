import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Listening sockets on 127.0.0.1 and ::1 (one port) and the thread that accepts on them, every descriptor
/// close-on-exec.
///
/// Why not NIO's server bootstrap: SwiftNIO opens and accepts sockets without close-on-exec, and WebKit starts its
/// network and web processes inheriting every descriptor that lacks it. The network process then held a copy of the
/// listening socket, so connections kept queuing after the app stopped listening (the page's upload hung instead
/// of failing over), and a web process started while a connection was open would hold that connection past its
/// close. NIO serves each accepted connection (`ClientBootstrap.withConnectedSocket`).
final class LoopbackAcceptor: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
            }
        }
    }

    let port: Int
    let listensOnIPv6: Bool
    private let sockets: [Int32]
    /// Written to wake the accepting thread when it must stop.
    private let wake: (read: Int32, write: Int32)
    /// Signalled by the accepting thread once the listening sockets are closed.
    private let closed = DispatchSemaphore(value: 0)

    /// Binds 127.0.0.1 on a random port, then ::1 on the same port when the machine has IPv6 loopback (a port
    /// taken on ::1 means another try).
    /// `deferAccept`: on Linux, hand over connections only once they sent something (`TCP_DEFER_ACCEPT`); tests
    /// turn it off to run the accepting thread as it runs on Darwin, which has no such option.
    init(deferAccept: Bool = true) throws {
        let (sockets, port, ipv6) = try Self.bindLoopback(deferAccept: deferAccept)
        var pipeEnds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Self.streamCloseOnExec, 0, &pipeEnds) == 0 else {
            let code = errno
            for socket in sockets { close(socket) }
            throw Failure.system("socketpair", code)
        }
        self.sockets = sockets
        self.port = port
        listensOnIPv6 = ipv6
        wake = (pipeEnds[0], pipeEnds[1])
    }

    private static func bindLoopback(deferAccept: Bool) throws -> (sockets: [Int32], port: Int, ipv6: Bool) {
        var lastError = Failure.system("bind ::1", EADDRINUSE)
        for _ in 0..<5 {
            let v4 = try listeningSocket(ipv6: false, port: 0, deferAccept: deferAccept)
            let port = localPort(v4)
            do {
                return ([v4, try listeningSocket(ipv6: true, port: port, deferAccept: deferAccept)], port, true)
            } catch .system(let call, let code) where code == EADDRINUSE {
                close(v4)
                lastError = .system(call, code)
            } catch {
                // No IPv6 loopback on this machine.
                return ([v4], port, false)
            }
        }
        throw lastError
    }

    /// What the owner made of a connection it was offered.
    enum Verdict {
        /// The owner has the descriptor now (it serves or closed it).
        case taken
        /// Nothing in the socket decides it yet: hold it unread and offer it again once it is readable.
        case waitForData
    }

    /// What the accepting thread does with the connections it accepts.
    struct Owner: Sendable {
        /// A new connection.
        var accepted: @Sendable (Int32) -> Verdict
        /// A connection held on ``Verdict/waitForData`` has bytes (or its end) now: it is the owner's.
        var readable: @Sendable (Int32) -> Void
        /// A held connection waited `waitLimit`, made room for a newer one, or the acceptor stopped (`stopping`):
        /// the acceptor closed it.
        var abandoned: @Sendable (_ stopping: Bool) -> Void
        /// Longest a held connection waits for its first bytes.
        var waitLimit: Duration
        /// Most connections held at once; a newer one pushes out the one held longest.
        var maxWaiting: Int
    }

    /// Accepts on a thread of its own until ``stop()``, and hands each connection to `owner`.
    ///
    /// Held connections are polled on the same thread as the listening sockets: holding one costs a descriptor and
    /// a `pollfd`, never a sleep, so connections that never send cannot slow the accepting of others.
    func run(_ owner: Owner) {
        let (sockets, wake, closed) = (sockets, wake, closed)
        let thread = Thread {
            let clock = ContinuousClock()
            var waiting: [(descriptor: Int32, since: ContinuousClock.Instant)] = []
            var listening = (sockets + [wake.read]).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            while true {
                var polled = listening + waiting.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
                let timeout = waiting.first.map { Self.milliseconds(owner.waitLimit - (clock.now - $0.since)) } ?? -1
                guard poll(&polled, nfds_t(polled.count), timeout) >= 0 || errno == EINTR else { break }
                listening = Array(polled.prefix(listening.count))
                if listening.last?.revents ?? 0 != 0 { break }
                // Held connections first: readable ones go to the owner, expired ones are closed.
                let now = clock.now
                var stillWaiting: [(descriptor: Int32, since: ContinuousClock.Instant)] = []
                for (entry, held) in zip(polled.dropFirst(listening.count), waiting) {
                    if entry.revents != 0 {
                        owner.readable(held.descriptor)
                    } else if now - held.since >= owner.waitLimit {
                        close(held.descriptor)
                        owner.abandoned(false)
                    } else {
                        stillWaiting.append(held)
                    }
                }
                waiting = stillWaiting
                for entry in listening.dropLast() where entry.revents & Int16(POLLIN) != 0 {
                    let connection = Self.acceptCloseOnExec(entry.fd)
                    if connection >= 0 {
                        guard case .waitForData = owner.accepted(connection) else { continue }
                        if waiting.count >= max(owner.maxWaiting, 1) {
                            close(waiting.removeFirst().descriptor)
                            owner.abandoned(false)
                        }
                        waiting.append((connection, clock.now))
                    } else if errno != EAGAIN, errno != EINTR, errno != ECONNABORTED {
                        // Out of descriptors, say: the connection waits in the backlog; do not spin on it.
                        usleep(10_000)
                    }
                }
            }
            for held in waiting {
                close(held.descriptor)
                owner.abandoned(true)
            }
            for socket in sockets { close(socket) }
            close(wake.read)
            closed.signal()
        }
        thread.name = "hybrid.body-channel.accept"
        thread.start()
    }

    /// `poll`'s timeout for what is left of a wait: whole milliseconds rounded up, never negative.
    private static func milliseconds(_ left: Duration) -> Int32 {
        let (seconds, attoseconds) = left.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(total, 0))
    }

    /// Stops accepting and closes the listening sockets (on the accepting thread); returns once they are closed,
    /// so a connection made after it is refused. Call once, after ``run(_:)``.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        close(wake.write)
        closed.wait()
    }

    /// Whether a whole request head (up to its blank line) already waits in the connection's receive buffer,
    /// looked at without reading it. The engine writes a head at once and whole; a sender dripping one does not.
    static func hasWholeHead(_ fd: Int32) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8192) { buffer in
            let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
            guard count >= 4 else { return false }
            for end in 3..<count
            where buffer[end] == 10 && buffer[end - 1] == 13 && buffer[end - 2] == 10 && buffer[end - 3] == 13 {
                return true
            }
            return false
        }
    }

    private static func listeningSocket(ipv6: Bool, port: Int, deferAccept: Bool) throws(Failure) -> Int32 {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, streamCloseOnExec, 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Glibc)
        // Linux hands a connection to `accept` only once its first bytes arrived (or after about a second): a real
        // client's whole head is then in the socket when the gate looks, and a local process reconnecting silent
        // connections as fast as they are closed costs the accepting thread nothing until it sends. Darwin has no
        // such option; the gate's second look (`Verdict.waitForData`) covers a head that comes a moment late.
        var deferSeconds: Int32 = 1
        if deferAccept {
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_DEFER_ACCEPT, &deferSeconds, socklen_t(MemoryLayout<Int32>.size))
        }
        #endif
        let bound: Int32
        if ipv6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        // The longest accept queue the system allows (the kernel caps it at its own limit): a local process holding
        // hundreds of connections open and reconnecting each one the channel closes keeps a short queue full, and the
        // kernel then drops the handshakes of the engine's real uploads too, which wait out its retransmission
        // backoff (1, 2, 4… s). Queued connections cost the kernel a little memory each, bounded by what the flooding
        // process itself holds open, and the accepting thread drains the queue in microseconds per connection.
        guard bound == 0, listen(fd, SOMAXCONN) == 0 else {
            let code = errno
            close(fd)
            throw .system(ipv6 ? "bind ::1" : "bind 127.0.0.1", code)
        }
        return fd
    }

    #if canImport(Glibc)
    private static let streamCloseOnExec = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)

    /// glibc's `accept4` (a GNU extension the Glibc module does not declare): the connection is close-on-exec
    /// from the moment it exists, with no window in which a process WebKit starts could inherit it.
    private typealias Accept4 =
        @convention(c) (
            Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
        ) -> Int32
    private static let accept4: Accept4? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4").map {
        unsafeBitCast($0, to: Accept4.self)
    }

    private static func acceptCloseOnExec(_ fd: Int32) -> Int32 {
        guard let accept4 else {
            let connection = accept(fd, nil, nil)
            if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
            return connection
        }
        return accept4(fd, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
    }
    #else
    private static let streamCloseOnExec = SOCK_STREAM

    /// Apple's WebKit starts its processes through XPC, which inherits no descriptors: no window to close.
    private static func acceptCloseOnExec(_ fd: Int32) -> Int32 {
        let connection = accept(fd, nil, nil)
        if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
        return connection
    }
    #endif

    private static func localPort(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
