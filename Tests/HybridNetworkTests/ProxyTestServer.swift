import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// What the test server saw of one request.
struct SeenRequest: Sendable {
    let method: String
    let path: String
    let query: String
    let authority: String?
    let headers: [(name: String, value: String)]
    let body: Data

    func values(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}

/// A flag the test opens and a server route polls.
final class Gate: Sendable {
    private let state = Mutex(false)
    var isOpen: Bool { state.withLock { $0 } }
    func open() { state.withLock { $0 = true } }
}

/// A real HTTP server on 127.0.0.1 (port chosen by the OS) with the routes the proxy tests need. Every request is
/// logged with its headers and body, so a test can check what really went over the wire.
final class ProxyTestServer: Sendable {
    let port: Int
    private let task: Task<Void, any Error>
    private let log: Mutex<[SeenRequest]>
    let streamGate = Gate()
    /// Set when the streaming route's second write happened after the test opened the gate.
    let streamSawGateOpen = Gate()
    /// Set when the slow route noticed the client went away.
    let slowClientLeft = Gate()

    var requests: [SeenRequest] { log.withLock { $0 } }
    func base(_ host: String = "127.0.0.1") -> String { "http://\(host):\(port)" }
    func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: base(host) + path) ?? URL(fileURLWithPath: "/invalid")
    }

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
        log = Mutex([])
    }

    deinit { task.cancel() }

    static func start() async throws -> ProxyTestServer {
        let box = ServerBox()
        let router = Router()
        let methods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .head, .options]
        func any(
            _ path: String,
            _ handler: @escaping @Sendable (Request, ByteBuffer, ProxyTestServer) async throws -> Response
        ) {
            for method in methods {
                router.on(RouterPath(path), method: method) { request, _ in
                    var request = request
                    let body = try await request.collectBody(upTo: 64 << 20)
                    guard let server = box.server else { return Response(status: .serviceUnavailable) }
                    server.record(request, body: body)
                    return try await handler(request, body, server)
                }
            }
        }
        any("/echo") { request, body, _ in
            var fields: [[String]] = request.headers.map { [$0.name.canonicalName, $0.value] }
            fields.append(["host", request.head.authority ?? ""])
            let echo: [String: Any] = [
                "method": request.method.rawValue, "headers": fields,
                "body": Data(body.readableBytesView).base64EncodedString(),
            ]
            let json = try JSONSerialization.data(withJSONObject: echo)
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: json)))
        }
        // /redirect/303?to=/echo[&cookie=name%3Dvalue]: answers `status` with Location `to`.
        any("/redirect/:status") { request, _, _ in statusAnswer(request, defaultStatus: 302, text: "moved") }
        // /early/STATUS[?to=/echo][&empty]: the same answer at once, without reading the request body (a server
        // refusing an upload, or redirecting it, before its end); `empty`: with no body, so its end comes with its head.
        for method in methods {
            router.on("/early/:status", method: method) { request, _ in
                statusAnswer(request, defaultStatus: 200, text: "early")
            }
        }
        // /loop/N: redirects N more times, then answers "done".
        any("/loop/:count") { request, _, _ in
            let count = Int(request.uri.path.split(separator: "/").last ?? "") ?? 0
            guard count > 0 else { return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "done"))) }
            return Response(status: .found, headers: [.location: "/loop/\(count - 1)"])
        }
        // Two cookies, one with a comma in its Expires: they must reach the jar as two whole lines.
        any("/cookies") { _, _, _ in
            var headers = HTTPFields()
            headers.append(HTTPField(name: .setCookie, value: "a=1; Path=/"))
            headers.append(HTTPField(name: .setCookie, value: "b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/"))
            headers.append(HTTPField(name: .contentType, value: "text/plain"))
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "cookies")))
        }
        // /bytes/N: N bytes with a Content-Length.
        any("/bytes/:count") { request, _, _ in
            let count = Int(request.uri.path.split(separator: "/").last ?? "") ?? 0
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: 0x61, count: count)))
        }
        // /chunked/N: N bytes in 16 KiB chunks, no Content-Length.
        any("/chunked/:count") { request, _, _ in
            let count = Int(request.uri.path.split(separator: "/").last ?? "") ?? 0
            return Response(
                status: .ok,
                body: ResponseBody { writer in
                    var left = count
                    while left > 0 {
                        let size = min(left, 16 << 10)
                        try await writer.write(ByteBuffer(repeating: 0x62, count: size))
                        left -= size
                    }
                    try await writer.finish(nil)
                })
        }
        // /gzip/N: N bytes, gzip-encoded, only when the request accepts gzip.
        any("/gzip/:count") { request, _, _ in
            let count = Int(request.uri.path.split(separator: "/").last ?? "") ?? 0
            let plain = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 % 253) })
            guard request.headers[.acceptEncoding]?.contains("gzip") == true else {
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: plain)))
            }
            return Response(
                status: .ok, headers: [.contentEncoding: "gzip", .contentType: "application/octet-stream"],
                body: .init(byteBuffer: ByteBuffer(bytes: gzipStored(plain))))
        }
        // Writes "first", waits (at most 10 s) for the test to open the gate, then writes "second".
        any("/stream") { _, _, server in
            Response(
                status: .ok, headers: [.contentType: "text/plain"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "first"))
                    for _ in 0..<1000 where !server.streamGate.isOpen { try await Task.sleep(for: .milliseconds(10)) }
                    if server.streamGate.isOpen { server.streamSawGateOpen.open() }
                    try await writer.write(ByteBuffer(string: "second"))
                    try await writer.finish(nil)
                })
        }
        // A chunk every 50 ms for 30 s; notes when the client leaves.
        any("/slow") { _, _, server in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    do {
                        for _ in 0..<600 {
                            try await writer.write(ByteBuffer(string: "tick\n"))
                            try await Task.sleep(for: .milliseconds(50))
                        }
                        try await writer.finish(nil)
                    } catch {
                        server.slowClientLeft.open()
                        throw error
                    }
                })
        }

        var logger = Logger(label: "hybrid.proxy-test-server")
        logger.logLevel = .warning
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            },
            logger: logger)
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw ServerDidNotStart()
        }
        let server = ProxyTestServer(port: port, task: task)
        box.server = server
        return server
    }

    private func record(_ request: Request, body: ByteBuffer) {
        let seen = SeenRequest(
            method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
            authority: request.head.authority,
            headers: request.headers.map { (name: $0.name.canonicalName, value: $0.value) },
            body: Data(body.readableBytesView))
        log.withLock { $0.append(seen) }
    }
}

struct ServerDidNotStart: Error, CustomStringConvertible {
    var description: String { "the proxy test server did not start listening on 127.0.0.1" }
}

/// The answer of `/redirect/STATUS` and `/early/STATUS`: the status in the path, Location from `to`, a Set-Cookie
/// per `cookie`, `text` as the body unless the query has `empty`.
private func statusAnswer(_ request: Request, defaultStatus: Int, text: String) -> Response {
    let status = Int(request.uri.path.split(separator: "/").last ?? "") ?? defaultStatus
    var headers = HTTPFields()
    if let to = request.uri.queryParameters.get("to") { headers.append(HTTPField(name: .location, value: to)) }
    for cookie in request.uri.queryParameters.getAll("cookie") {
        headers.append(HTTPField(name: .setCookie, value: cookie))
    }
    let body = request.uri.queryParameters.has("empty") ? "" : text
    return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
}

/// Lets the routes reach the server object created after the router.
private final class ServerBox: Sendable {
    private let state = Mutex<ProxyTestServer?>(nil)
    var server: ProxyTestServer? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
