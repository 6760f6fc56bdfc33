import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP server acting as a hostile CDN or mirror between an update client and the release host: per
/// request path it relays to the real server (nginx), answers a bare status, or sends a body of its choosing at
/// its own pace — endless, longer than declared, one byte a second. Blocking sockets on threads of its own, so a
/// stalled client never holds a cooperative thread.
final class HostileMirror: Sendable {
    enum Reply: Sendable {
        /// Forwards the request to the upstream server (with `Connection: close`) and its answer back.
        case relay
        /// An empty answer with this status.
        case status(Int)
        /// `head` (status line and headers, without the blank line), then `chunk` bytes of `x` at a time, with
        /// `pause` between chunks, until `total` bytes (nil: forever) or the client goes away.
        case body(head: [String], chunk: Int, pause: Duration? = nil, total: Int? = nil)
    }

    let port: UInt16
    private let listener: Int32
    private let upstreamPort: UInt16?
    private let reply: Mutex<@Sendable (String) -> Reply>
    private let open = Mutex<Set<Int32>>([])
    private let stopped = Mutex(false)
    /// Body bytes the kernel took from `.body` answers, per request path (what the client let through).
    let bodyBytesSent = Mutex<[String: Int]>([:])

    // swift-format-ignore: NeverForceUnwrap
    // A loopback URL with a port always parses.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    init(upstreamPort: UInt16? = nil, reply: @escaping @Sendable (String) -> Reply) throws {
        self.upstreamPort = upstreamPort
        self.reply = Mutex(reply)
        let socket = try CuttingProxy.listenOnLoopback()
        listener = socket.fd
        port = socket.port
        let mirror = self
        Thread { mirror.acceptLoop() }.start()
    }

    /// Changes the answers from now on.
    func answer(_ reply: @escaping @Sendable (String) -> Reply) { self.reply.withLock { $0 = reply } }

    func sent(to path: String) -> Int { bodyBytesSent.withLock { $0[path] ?? 0 } }

    /// Stops accepting and cuts every open connection, so a client still reading ends too.
    func stop() {
        // Once: a second close could hit a descriptor reused by someone else.
        guard
            stopped.withLock({ state in
                defer { state = true }; return !state
            })
        else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            open.withLock { _ = $0.insert(client) }
            let mirror = self
            Thread {
                mirror.serve(client)
                mirror.open.withLock { _ = $0.remove(client) }
                close(client)
            }.start()
        }
    }

    private func serve(_ client: Int32) {
        guard let head = Self.readHead(client), let path = head.split(separator: " ").dropFirst().first else { return }
        switch reply.withLock({ $0 })(String(path)) {
        case .relay:
            relay(head, to: client)
        case .status(let status):
            _ = Self.send(
                client, Data("HTTP/1.1 \(status) Mirror\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        case .body(let headLines, let chunk, let pause, let total):
            guard Self.send(client, Data((headLines.joined(separator: "\r\n") + "\r\n\r\n").utf8)) else { return }
            let piece = Data(repeating: UInt8(ascii: "x"), count: chunk)
            var sent = 0
            while total.map({ sent < $0 }) ?? true {
                let next = total.map { min(chunk, $0 - sent) } ?? chunk
                guard Self.send(client, piece.prefix(next)) else { break }
                sent += next
                bodyBytesSent.withLock { $0[String(path)] = sent }
                if let pause {
                    Thread.sleep(
                        forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18)
                }
            }
            // Let the client read what was sent before the connection goes.
            shutdown(client, Int32(SHUT_WR))
            var sink = [UInt8](repeating: 0, count: 4_096)
            while read(client, &sink, sink.count) > 0 {}
        }
    }

    private func relay(_ head: String, to client: Int32) {
        guard let upstreamPort else { return }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        var address = sockaddr_in.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return }
        // One request per connection: the upstream closes after its answer, which ends the copy below.
        let lines = head.components(separatedBy: "\r\n").filter {
            !$0.lowercased().hasPrefix("connection:") && !$0.isEmpty
        }
        guard Self.send(upstream, Data((lines + ["Connection: close", "", ""]).joined(separator: "\r\n").utf8)) else {
            return
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(upstream, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0, Self.send(client, Data(buffer[0..<count])) else { break }
        }
        shutdown(client, Int32(SHUT_WR))
    }

    /// The request line and headers, up to the blank line (the update clients send no bodies).
    private static func readHead(_ fd: Int32) -> String? {
        var data = Data()
        var byte: UInt8 = 0
        while data.count < 65_536 {
            let count = read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return nil }
            data.append(byte)
            if data.suffix(4) == Data("\r\n\r\n".utf8) { return String(decoding: data, as: UTF8.self) }
        }
        return nil
    }

    private static func send(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return true }  // nothing to send
            var written = 0
            while written < bytes.count {
                let result = Glibc.send(fd, base + written, bytes.count - written, Int32(MSG_NOSIGNAL))
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { return false }
                written += result
            }
            return true
        }
    }
}
