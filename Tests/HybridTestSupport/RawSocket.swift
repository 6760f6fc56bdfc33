import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
private func sendBytes(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    Glibc.send(fd, bytes, count, Int32(MSG_NOSIGNAL))
}
#else
private func sendBytes(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    Darwin.send(fd, bytes, count, 0)
}
#endif

/// One TCP connection to the server, byte for byte: for what URLSession cannot send (no `Host`, two `Host` lines,
/// HTTP/1.0) or cannot show (a HEAD answer's missing body, a connection closed mid-headers).
///
/// Runs on its own thread with blocking calls, so a test waiting on a silent server never holds one of the few
/// cooperative threads that the server's own handlers need.
public enum RawSocket {
    public struct Exchange: Sendable {
        /// Every byte the server sent.
        public let received: Data
        /// The server closed the connection (read end of file or a reset) before `readFor` ran out.
        public let closedByServer: Bool
        /// From connecting to the server closing the connection (or to giving up).
        public let elapsed: Duration
        /// How many of the chunks were sent before the server closed the connection.
        public let chunksSent: Int

        public var response: Response? { Response(received) }
    }

    /// A parsed HTTP/1.1 response; only what the tests check.
    public struct Response: Sendable {
        public let status: Int
        public let headers: [(name: String, value: String)]
        public let body: Data

        public init?(_ data: Data) {
            guard let end = data.range(of: Data("\r\n\r\n".utf8)),
                let head = String(data: data[..<end.lowerBound], encoding: .utf8)
            else { return nil }
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
            self.status = status
            headers = lines.compactMap { line in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (
                    String(line[..<colon]),
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                )
            }
            body = Data(data[end.upperBound...])
        }

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    public enum Failure: Error {
        case socket(Int32)
        case connect(Int32)
    }

    /// Sends `request` in one piece and reads until the server closes (send `Connection: close`) or `readFor`.
    public static func send(
        _ request: String, port: Int, ipv6: Bool = false, readFor: Duration = .seconds(5)
    ) async throws -> Exchange {
        try await exchange(port: port, ipv6: ipv6, chunks: [Data(request.utf8)], readFor: readFor)
    }

    /// Connects to 127.0.0.1:`port` (or [::1]:`port`), sends `chunks` with `pause` between them (stopping early if
    /// the server closes the connection), then reads until the server closes it or `readFor` has passed since the
    /// last chunk.
    public static func exchange(
        port: Int, ipv6: Bool = false, chunks: [Data], pause: Duration = .zero, readFor: Duration
    ) async throws -> Exchange {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    with: Result {
                        try blockingExchange(port: port, ipv6: ipv6, chunks: chunks, pause: pause, readFor: readFor)
                    })
            }
            thread.start()
        }
    }

    private static func blockingExchange(
        port: Int, ipv6: Bool, chunks: [Data], pause: Duration, readFor: Duration
    ) throws -> Exchange {
        #if canImport(Glibc)
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure.socket(errno) }
        defer { close(fd) }
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            address.sin6_addr = in6addr_loopback
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard connected == 0 else { throw Failure.connect(errno) }
        let clock = ContinuousClock()
        let start = clock.now
        var received = Data()
        var sent = 0
        var closed = false
        for (index, chunk) in chunks.enumerated() {
            if index > 0 {
                closed = readUntilClosed(fd, into: &received, until: clock.now.advanced(by: pause), clock: clock)
                if closed { break }
            }
            let written = chunk.withUnsafeBytes { sendBytes(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                closed = true
                break
            }
            sent += 1
        }
        if !closed {
            closed = readUntilClosed(fd, into: &received, until: clock.now.advanced(by: readFor), clock: clock)
        }
        return Exchange(received: received, closedByServer: closed, elapsed: clock.now - start, chunksSent: sent)
    }

    /// Reads whatever arrives until `deadline`; true as soon as the server closes the connection.
    private static func readUntilClosed(
        _ fd: Int32, into received: inout Data, until deadline: ContinuousClock.Instant, clock: ContinuousClock
    ) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let left = deadline - clock.now
            if left <= .zero { return false }
            let milliseconds = Int32(
                min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 60_000))
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, max(milliseconds, 1))
            if ready < 0 { return true }
            if ready == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return true }
            received.append(contentsOf: buffer[0..<count])
        }
    }
}
