#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridTestServers
import Synchronization

/// Two loopback sites for the cookie tests — 127.0.0.1 and 127.0.0.2, two hosts as far as cookies go — with the
/// same routes, and a log of the `Cookie` header every request carried:
/// - `/page.html`: an empty page; `/echo`: answers the request's Cookie header as text;
/// - `/set?c=<Set-Cookie>&c=…`: answers "ok" with those Set-Cookie headers, one per value;
/// - `/redirect?to=<url>&c=<Set-Cookie>…`: a 302 to `to`, with those Set-Cookie headers.
struct CookieSites {
    let a: LoopbackServer
    let b: LoopbackServer
    let hits: HitLog

    struct Hit: Sendable, Equatable {
        let host: String
        let path: String
        let cookie: String
    }

    final class HitLog: Sendable {
        private let hits = Mutex<[Hit]>([])
        func record(_ hit: Hit) { hits.withLock { $0.append(hit) } }
        var all: [Hit] { hits.withLock { $0 } }
        /// The Cookie header of the last request to `path` on `host` (nil: no such request).
        func cookie(host: String, path: String) -> String? { all.last { $0.host == host && $0.path == path }?.cookie }
    }

    static func start(root: URL) async throws -> CookieSites {
        let hits = HitLog()
        let pages = root.appendingPathComponent("cookie-sites")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        let configure: @Sendable (Router<BasicRequestContext>) -> Void = { router in
            router.middlewares.add(HitMiddleware(log: hits))
            // A route, not a file: files are served before the hit log sees the request.
            router.get("/page.html") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: "<!doctype html><title>page</title>")))
            }
            router.get("/echo") { request, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/plain"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: request.headers[.cookie] ?? "")))
            }
            router.get("/set") { request, _ in
                var headers: HTTPFields = [.contentType: "text/plain"]
                headers[values: .setCookie] = query(request, "c")
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok")))
            }
            router.get("/redirect") { request, _ in
                var headers: HTTPFields = [.location: query(request, "to").first ?? "/"]
                headers[values: .setCookie] = query(request, "c")
                return Response(status: .found, headers: headers)
            }
        }
        let a = try await LoopbackServer.start(serving: pages, host: "127.0.0.1", configure: configure)
        let b = try await LoopbackServer.start(serving: pages, host: "127.0.0.2", configure: configure)
        return CookieSites(a: a, b: b, hits: hits)
    }

    func stop() {
        a.stop()
        b.stop()
    }

    /// `/set` on `server` with the given Set-Cookie values.
    static func setURL(_ server: LoopbackServer, _ cookies: String...) -> URL {
        var components = URLComponents(string: server.origin + "/set")
        components?.queryItems = cookies.map { URLQueryItem(name: "c", value: $0) }
        return components?.url ?? URL(fileURLWithPath: "/")
    }

    /// `/redirect` on `server` to `target`, setting the given cookies on the way.
    static func redirectURL(_ server: LoopbackServer, to target: URL, _ cookies: String...) -> URL {
        var components = URLComponents(string: server.origin + "/redirect")
        components?.queryItems =
            [URLQueryItem(name: "to", value: target.absoluteString)]
            + cookies.map { URLQueryItem(name: "c", value: $0) }
        return components?.url ?? URL(fileURLWithPath: "/")
    }
}

private func query(_ request: Request, _ name: String) -> [String] {
    // URLComponents decodes what URLComponents encoded: `+` and `;` inside a Set-Cookie value come back intact.
    let items = URLComponents(string: request.uri.description)?.queryItems ?? []
    return items.filter { $0.name == name }.compactMap(\.value)
}

private struct HitMiddleware: RouterMiddleware {
    let log: CookieSites.HitLog

    func handle(
        _ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        log.record(
            CookieSites.Hit(
                host: request.head.authority?.split(separator: ":").first.map(String.init) ?? "",
                path: request.uri.path, cookie: request.headers[.cookie] ?? ""))
        return try await next(request, context)
    }
}
#endif
