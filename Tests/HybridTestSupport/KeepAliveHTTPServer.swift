import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on 127.0.0.1 that keeps connections open and counts them: whether a client reused its
/// connections is what it tells. Answers every request with `200` and a fixed body, after `delay`, and records
/// each request's head (its `Cookie` header included).
///
/// A thread accepts, and a thread per connection serves its requests one after another until the client closes it.
public final class KeepAliveHTTPServer: Sendable {
    public let port: Int
    private let listener: Int32
    private let accepted = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let heads = Mutex<[String]>([])

    public var origin: String { "http://127.0.0.1:\(port)" }
    /// Connections accepted so far.
    public var connections: Int { accepted.load(ordering: .acquiring) }
    /// The heads of the requests answered or being answered, oldest first.
    public var requests: [String] { heads.withLock { $0 } }

    /// - Parameters:
    ///   - body: what every answer carries.
    ///   - contentType: its type.
    ///   - setCookie: a `Set-Cookie` value every answer carries, if any.
    ///   - delay: how long each answer waits after its request.
    ///   - redirects: paths answered at once with a `302` to the location given, instead of the answer above.
    public init(
        body: String = "ok", contentType: String = "text/plain", setCookie: String? = nil, delay: Duration = .zero,
        redirects: [String: String] = [:]
    ) throws {
        (listener, port) = try RawHTTPServer.listenOnLoopback()
        var answer = "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n"
        if let setCookie { answer += "Set-Cookie: \(setCookie)\r\n" }
        let response = Data((answer + "\r\n" + body).utf8)
        let moved = redirects.mapValues {
            Data("HTTP/1.1 302 Found\r\nLocation: \($0)\r\nContent-Length: 0\r\n\r\n".utf8)
        }
        let thread = Thread { [self] in
            acceptConnections { head in
                let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                return moved[path].map { ($0, .zero) } ?? (response, delay)
            }
        }
        thread.start()
    }

    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    /// The answer to a request head, and how long it waits.
    private typealias Answering = @Sendable (String) -> (Data, Duration)

    private func acceptConnections(_ answer: @escaping Answering) {
        while running.load(ordering: .acquiring) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            accepted.add(1, ordering: .releasing)
            let thread = Thread { [self] in serve(connection, answer) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32, _ answer: Answering) {
        defer { close(connection) }
        while running.load(ordering: .acquiring), let head = RawHTTPServer.readRequest(connection) {
            heads.withLock { $0.append(head) }
            let (response, delay) = answer(head)
            if delay > .zero { Thread.sleep(forTimeInterval: delay / .seconds(1)) }
            let written = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard written == response.count else { return }
        }
    }
}
