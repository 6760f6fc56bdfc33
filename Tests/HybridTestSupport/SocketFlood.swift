import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What any local process can do to a loopback port: hold `connections` connections open, each dripping one byte
/// of a request head that never ends every `interval`, and open a new one for each the server closes.
///
/// One thread, non-blocking sockets and `poll`, so hundreds of connections cost no threads of the test.
public final class SocketFlood: Sendable {
    public struct Counts: Sendable {
        /// Connections opened in all, reconnections included.
        public var opened = 0
        /// Connections the server closed (end of file or reset).
        public var closedByServer = 0
        /// Connections open right now.
        public var open = 0
    }

    /// Shared with the flooding thread.
    private final class Shared: Sendable {
        let counts = Mutex(Counts())
        let stopped = Atomic<Bool>(false)
        let finished = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()

    public var current: Counts { shared.counts.withLock { $0 } }

    /// Starts flooding 127.0.0.1:`port` at once.
    public init(port: Int, connections: Int, interval: Duration, reconnect: Bool = true) {
        let shared = shared
        // A head that never ends: a header line far longer than any drip gets through in a test.
        let head = Array("POST /body HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Pad: ".utf8)
        let thread = Thread {
            var sockets = [Int32](repeating: -1, count: connections)
            var sent = [Int](repeating: 0, count: connections)
            let clock = ContinuousClock()
            var nextDrip = clock.now
            while !shared.stopped.load(ordering: .relaxed) {
                for index in sockets.indices where sockets[index] < 0 {
                    if shared.counts.withLock({ $0.opened }) >= connections, !reconnect { break }
                    let fd = Self.connectNonBlocking(port: port)
                    guard fd >= 0 else { break }
                    sockets[index] = fd
                    sent[index] = 0
                    shared.counts.withLock {
                        $0.opened += 1
                        $0.open += 1
                    }
                }
                let drip = clock.now >= nextDrip
                if drip { nextDrip = clock.now.advanced(by: interval) }
                var polled = sockets.filter { $0 >= 0 }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                _ = poll(&polled, nfds_t(polled.count), 50)
                var closedNow = Set<Int32>()
                var scratch = [UInt8](repeating: 0, count: 4096)
                for entry in polled where entry.revents != 0 {
                    let count = scratch.withUnsafeMutableBytes {
                        recv(entry.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                    }
                    if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                        closedNow.insert(entry.fd)
                    }
                }
                for index in sockets.indices where sockets[index] >= 0 {
                    let fd = sockets[index]
                    if !closedNow.contains(fd), drip {
                        var byte = sent[index] < head.count ? head[sent[index]] : UInt8(ascii: "a")
                        if Self.sendNoSignal(fd, &byte) < 0, errno != EAGAIN, errno != ENOTCONN { closedNow.insert(fd) }
                        sent[index] += 1
                    }
                    if closedNow.contains(fd) {
                        close(fd)
                        sockets[index] = -1
                        shared.counts.withLock {
                            $0.closedByServer += 1
                            $0.open -= 1
                        }
                    }
                }
            }
            for fd in sockets where fd >= 0 { close(fd) }
            shared.counts.withLock { $0.open = 0 }
            shared.finished.signal()
        }
        thread.name = "test.socket-flood"
        thread.start()
    }

    /// Stops and closes every connection; returns once they are closed.
    public func stop() {
        guard !shared.stopped.exchange(true, ordering: .relaxed) else { return }
        shared.finished.wait()
    }

    deinit { stop() }

    private static func sendNoSignal(_ fd: Int32, _ byte: inout UInt8) -> Int {
        #if canImport(Glibc)
        Glibc.send(fd, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        #else
        Darwin.send(fd, &byte, 1, MSG_DONTWAIT)
        #endif
    }

    private static func connectNonBlocking(port: Int) -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        if fd >= 0 { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
        #endif
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 || errno == EINPROGRESS else {
            close(fd)
            return -1
        }
        return fd
    }
}
