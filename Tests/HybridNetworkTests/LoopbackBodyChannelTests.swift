import Foundation
import HybridKit
import HybridNetwork
import HybridTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The listener itself: where it listens, that it stops, and that none of its descriptors can leak into a process
/// WebKit starts (WebKit's children inherit every descriptor that is not close-on-exec).
@Suite(.serialized) struct LoopbackBodyChannelTests {
    @Test func listensOnBothLoopbacksAndStops() async throws {
        let channel = try LoopbackBodyChannel.start()
        #expect(channel.endpoint == "http://127.0.0.1:\(channel.port)")
        #expect(channel.listensOnIPv6, "this machine has no ::1 loopback: the channel listens on 127.0.0.1 only")
        let request = "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(channel.port)\r\n\r\n"
        let v4 = try await RawSocket.send(request, port: channel.port)
        #expect(v4.response?.status == 404 && v4.closedByServer)
        let v6 = try await RawSocket.send(request, port: channel.port, ipv6: true)
        #expect(v6.response?.status == 404 && v6.closedByServer)
        channel.stop()
        #expect(channel.endpoint == nil)
        for ipv6 in [false, true] {
            await #expect(throws: RawSocket.Failure.self) {
                _ = try await RawSocket.send(request, port: channel.port, ipv6: ipv6)
            }
        }
    }

    @Test func everyDescriptorOfTheChannelIsCloseOnExec() async throws {
        let channel = try LoopbackBodyChannel.start()
        defer { channel.stop() }
        // A connection held open while the descriptors are looked at: the accepted one counts too.
        let head = "POST /body HTTP/1.1\r\nHost: 127.0.0.1:\(channel.port)\r\nContent-Length: 10\r\n"
        async let held = RawSocket.exchange(
            port: channel.port, chunks: [Data(head.utf8)], readFor: .seconds(1))
        try await Task.sleep(for: .milliseconds(300))
        let descriptors = Self.sockets(withLocalPort: channel.port)
        #expect(descriptors.count >= 3, "listening on 127.0.0.1 and ::1, and one accepted: \(descriptors)")
        for (fd, closeOnExec) in descriptors {
            #expect(closeOnExec, "descriptor \(fd) would leak into WebKit's children")
        }
        _ = try await held

        // The check can fail: a socket opened without the flag is found and reported.
        let plain = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(plain) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(plain, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let port = try #require(Self.localPort(plain))
        #expect(Self.sockets(withLocalPort: port).map(\.closeOnExec) == [false])
    }

    /// This process's sockets bound to `port` on any address, and whether each is close-on-exec.
    static func sockets(withLocalPort port: Int) -> [(fd: Int32, closeOnExec: Bool)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap(Int32.init).sorted().compactMap { fd in
            guard localPort(fd) == port else { return nil }
            return (fd, fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        }
    }

    static func localPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }
}
