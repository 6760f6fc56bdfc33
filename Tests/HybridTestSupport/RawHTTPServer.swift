import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A hostile upstream on 127.0.0.1: answers every connection with the bytes a test wrote out, byte for byte (a
/// status no framework would send, a reason phrase outside ASCII, headers a real server would not name), after
/// reading the request's head and the body its `Content-Length` announces. For what Hummingbird will not send.
///
/// Accepts on a thread of its own with blocking calls, one connection at a time; `stop()` closes the listener.
public final class RawHTTPServer: Sendable {
    public let port: Int
    private let listener: Int32
    private let answered = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)

    /// Connections answered so far.
    public var requests: Int { answered.load(ordering: .acquiring) }

    public enum Failure: Error { case listen(Int32) }

    private let seen = Mutex<[String]>([])
    /// The heads of the requests answered so far.
    public var heads: [String] { seen.withLock { $0 } }

    /// Listens on 127.0.0.1 (on `port`, or a random one) and answers each request with `response`.
    public init(response: Data, port: Int = 0) throws {
        (listener, self.port) = try Self.listenOnLoopback(port: port)
        let thread = Thread { [self] in serve(response) }
        thread.start()
    }

    /// A listening socket on 127.0.0.1, on `port` (0: a random one), taken even while connections to a listener
    /// that had it before linger.
    static func listenOnLoopback(port: Int = 0) throws -> (fd: Int32, port: Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure.listen(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw Failure.listen(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func serve(_ response: Data) {
        while running.load(ordering: .acquiring) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            if let head = Self.readRequest(connection) { seen.withLock { $0.append(head) } }
            answered.add(1, ordering: .releasing)
            _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            shutdown(connection, Int32(SHUT_WR))
            close(connection)
        }
    }

    /// Reads the head and the body its Content-Length announces (at most 5 s), so the client sees its request
    /// taken before the answer; returns the head, nil when the connection ended (or stalled) before one.
    @discardableResult
    static func readRequest(_ fd: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if let end = received.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                let length =
                    head.lowercased().components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count - end.upperBound >= length { return head }
            }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            received.append(contentsOf: buffer[0..<count])
        }
    }
}
