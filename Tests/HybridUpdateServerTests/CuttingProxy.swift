import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP proxy in front of a server that, while `cutAfter` is set, closes each connection once that
/// many response bytes have passed: a connection that dies mid-file, for real, between a client and nginx.
final class CuttingProxy: Sendable {
    let port: UInt16
    private let listener: Int32
    private let upstreamPort: UInt16
    /// Response bytes allowed per connection before it is cut; nil passes everything.
    let cutAfter = Mutex<Int?>(nil)
    /// Connections cut so far.
    let cuts = Mutex(0)

    // swift-format-ignore: NeverForceUnwrap
    // A loopback URL with a port always parses.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    init(upstreamPort: UInt16) throws {
        self.upstreamPort = upstreamPort
        let socket = try CuttingProxy.listenOnLoopback()
        listener = socket.fd
        port = socket.port
        let proxy = self
        Thread { proxy.acceptLoop() }.start()
    }

    /// Stops accepting (open connections finish on their own).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let proxy = self
            Thread { proxy.relay(client) }.start()
        }
    }

    private func relay(_ client: Int32) {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(upstream)
            close(client)
            return
        }
        let requestsDone = DispatchSemaphore(value: 0)
        Thread {
            Self.copy(from: client, to: upstream, limit: { nil })
            shutdown(upstream, Int32(SHUT_WR))
            requestsDone.signal()
        }.start()
        if Self.copy(from: upstream, to: client, limit: { self.cutAfter.withLock { $0 } }) {
            cuts.withLock { $0 += 1 }
        }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(upstream, Int32(SHUT_RDWR))
        requestsDone.wait()
        close(client)
        close(upstream)
    }

    /// Copies until end of stream or `limit` bytes; returns true when the limit cut the stream.
    @discardableResult
    /// The limit is read on every read, so setting `cutAfter` also cuts connections opened before.
    private static func copy(from source: Int32, to target: Int32, limit currentLimit: () -> Int?) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var passed = 0
        while true {
            let count = read(source, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            let limit = currentLimit()
            var allowed = count
            if let limit { allowed = max(0, min(count, limit - passed)) }
            var written = 0
            while written < allowed {
                let result = buffer.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return 0 }
                    return write(target, base + written, allowed - written)
                }
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { return false }
                written += result
            }
            passed += allowed
            if let limit, passed >= limit { return true }
        }
    }
}

extension CuttingProxy {
    /// A listening TCP socket on 127.0.0.1 at a port the system picks (shared by the tests' raw servers).
    static func listenOnLoopback() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw NginxServer.Failure.spawnFailed(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
