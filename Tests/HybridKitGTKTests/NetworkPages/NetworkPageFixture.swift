#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridKit
import HybridKitGTK
import HybridTestServers
import Synchronization
import Testing

/// Two loopback origins (the page's, and another one a redirect leads to), a jar kept in step with the engine, and
/// a native network that counts the documents it fetched.
final class NetworkPageFixture: Sendable {
    let server: LoopbackServer
    let other: LoopbackServer
    let jar = CookieJar()
    /// What reached the page's server, as `METHOD path?query`, and the Cookie and User-Agent of each `/page`.
    let log = ServerLog()
    let pageHeaders = ServerLog()
    let otherLog = ServerLog()
    /// Documents the native network was asked for.
    let nativeFetches = ServerLog()
    static let userAgent = "HybridKitTest/1 (network pages)"

    @GTKActor init() async throws {
        try GTKRuntime.shared.start(.headless)
        let log = self.log, headers = self.pageHeaders
        let otherLog = self.otherLog
        other = try await LoopbackServer.start(
            serving: URL.temporaryDirectory.appending(path: "none"), host: "127.0.0.2"
        ) {
            router in
            router.get("page") { request, _ in
                otherLog.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                return Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: .init(byteBuffer: ByteBuffer(string: "<title>other</title>")))
            }
        }
        let otherOrigin = other.origin
        server = try await LoopbackServer.start(serving: URL.temporaryDirectory.appending(path: "none")) { router in
            let html: @Sendable (String) -> String = { title in
                "<!doctype html><meta charset=\"utf-8\"><title>\(title)</title><p>é</p><script>document.title += ' ran'</script>"
            }
            router.get("page") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                headers.note("cookie=\(request.headers[.cookie] ?? "") ua=\(request.headers[.userAgent] ?? "")")
                var fields: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"]
                fields.append(HTTPFields.Element(name: .setCookie, value: "doc=d1; Path=/"))
                fields.append(HTTPFields.Element(name: .setCookie, value: "hid=h1; Path=/; HttpOnly"))
                fields.append(HTTPFields.Element(name: .setCookie, value: "evil=1; Path=/; Domain=example.com"))
                return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html("page"))))
            }
            router.get("api") { request, _ in
                Response(
                    status: .ok, body: .init(byteBuffer: ByteBuffer(string: "cookie=\(request.headers[.cookie] ?? "")"))
                )
            }
            router.get("old") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                return Response(status: .found, headers: [.location: "/page?from=old"])
            }
            router.get("away") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                return Response(status: .found, headers: [.location: "\(otherOrigin)/page"])
            }
            router.get("csp") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                return Response(
                    status: .ok,
                    headers: [.contentType: "text/html", .contentSecurityPolicy: "script-src 'none'"],
                    body: .init(byteBuffer: ByteBuffer(string: html("csp"))))
            }
            router.get("json") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: "{}")))
            }
            // Hostile charsets: the document's bytes in the charset its header names (quoted, other cases), one
            // whose UTF-8 BOM contradicts its header, one with no charset but a <meta>.
            let charsets: [(String, String, [UInt8])] = [
                (
                    "cp1251", "text/html; charset=windows-1251",
                    Array("<title>".utf8) + [0xCF, 0xF0, 0xE8] + Array("</title>".utf8)
                ),
                (
                    "quoted", "text/html; charset=\"ISO-8859-1\"",
                    Array("<title>caf".utf8) + [0xE9] + Array("</title>".utf8)
                ),
                ("upper", "TEXT/HTML;CHARSET=UTF-8", Array("<title>caf\u{E9}</title>".utf8)),
                ("bom", "text/html; charset=iso-8859-1", [0xEF, 0xBB, 0xBF] + Array("<title>caf\u{E9}</title>".utf8)),
                ("default", "text/html", Array("<title>caf".utf8) + [0xE9] + Array("</title>".utf8)),
                (
                    "meta", "text/html",
                    Array("<meta charset=\"windows-1251\"><title>".utf8) + [0xCF, 0xF0, 0xE8] + Array("</title>".utf8)
                ),
            ]
            for (name, type, bytes) in charsets {
                router.get("charset/\(name)") { request, _ in
                    log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                    let fields: HTTPFields = [.contentType: type]
                    return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
                }
            }
            // Document-level headers WebKitGTK's simulated load cannot carry: each must leave the page to the engine.
            for (name, value) in [
                ("Refresh", "0; url=/page?from=refresh"), ("Link", "</api>; rel=preload; as=fetch"),
                ("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"),
            ] {
                router.get("header/\(name.lowercased())") { request, _ in
                    log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                    var fields: HTTPFields = [.contentType: "text/html"]
                    if let field = HTTPFields.Element.Name(name) {
                        fields.append(HTTPFields.Element(name: field, value: value))
                    }
                    return Response(
                        status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html(name))))
                }
            }
            // 200 KB of HTML: over a 64 KB bound.
            router.get("big") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                let filler = String(repeating: "<p>filler</p>", count: 200_000 / 13)
                return Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: .init(byteBuffer: ByteBuffer(string: html("big") + filler)))
            }
            // Documents that take 300 ms (`?ms=` for another wait), long enough for a cold view's web process to
            // start meanwhile; the second with a policy the simulated load cannot carry.
            router.get("slow") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                let wait = request.uri.queryParameters.get("ms").flatMap { Int($0) } ?? 300
                try await Task.sleep(for: .milliseconds(wait))
                return Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: .init(byteBuffer: ByteBuffer(string: html("slow"))))
            }
            router.get("slowcsp") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                try await Task.sleep(for: .milliseconds(300))
                return Response(
                    status: .ok,
                    headers: [.contentType: "text/html", .contentSecurityPolicy: "script-src 'none'"],
                    body: .init(byteBuffer: ByteBuffer(string: html("slowcsp"))))
            }
            // A document that drips: five pieces, 200 ms apart.
            router.get("drip") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                return Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(string: "<!doctype html><title>drip</title>"))
                        for index in 0..<5 {
                            try await Task.sleep(for: .milliseconds(200))
                            try await writer.write(ByteBuffer(string: "<p id=\"p\(index)\">\(index)</p>"))
                        }
                        try await writer.finish(nil)
                    })
            }
        }
        jar.setCookie("sid=s1; Path=/", for: .http(try #require(URL(string: server.origin + "/"))))
    }

    func url(_ path: String) throws -> URL { try #require(URL(string: server.origin + path)) }

    /// Removes what earlier suites left in the engine's store for the loopback hosts (the store is shared by every
    /// view of the process, and cookies ignore ports), so the page reads only this fixture's cookies; cookies named
    /// as one of `jar`'s stay, as they were made (their order in `document.cookie` is their creation order). Safe
    /// while the suite holds the store alone (`.engineCookieStoreExclusive`).
    @GTKActor static func clearLoopbackCookies(_ store: any EngineCookieStore, keeping jar: CookieJar) async throws {
        let own = Set(jar.allCookies().map(\.name))
        for cookie in try await store.cookies(for: nil)
        where ["127.0.0.1", "127.0.0.2"].contains(cookie.domain.lowercased().trimmingPrefix(".").description)
            && !own.contains(cookie.name)
        {
            try await store.deleteCookie(cookie)
        }
    }

    func prefetcher(
        policy: NetworkPagePolicy = NetworkPagePolicy(allowsPrivateAddresses: true),
        network: (@Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching)? = nil
    ) throws -> NetworkPagePrefetcher {
        let fetches = nativeFetches
        let counting: @Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching = { cookies in
            CountingNetwork(
                base: network?(cookies) ?? URLSessionNetworkFetcher(timeout: 30, cookies: cookies), log: fetches)
        }
        return try NetworkPagePrefetcher(
            origins: [server.origin], policy: policy, jar: jar, userAgent: Self.userAgent, network: counting)
    }

    func configuration(_ prefetcher: NetworkPagePrefetcher?) -> ContainerConfiguration {
        ContainerConfiguration(
            features: prefetcher.map { [NetworkPagePrefetch($0)] } ?? [], documentCookies: .automatic(jar: jar),
            userAgent: Self.userAgent)
    }

    /// Opens `path` in a new view (with the jar synced into its engine first) and probes the document.
    @GTKActor func open(_ path: String, with prefetcher: NetworkPagePrefetcher?, pool: WebViewPool? = nil)
        async throws -> Probe
    {
        let container =
            if let pool {
                try HybridContainer(configuration: configuration(prefetcher), pool: pool)
            } else {
                try HybridContainer(configuration: configuration(prefetcher), factory: GTKEngineFactory())
            }
        defer { container.close() }
        try await Self.clearLoopbackCookies(container.engine.cookieStore, keeping: jar)
        let sync = EngineCookieSync(jar: jar, store: container.engine.cookieStore)
        defer { sync.stop() }
        await sync.start()
        try await container.loadAndWait(try url(path))
        return try await Self.probe(container.engine)
    }

    /// What the document says of itself, as a page's script reads it.
    struct Probe: Codable, Equatable {
        var href: String
        var url: String
        var origin: String
        var cookie: String
        var fetched: String
        var title: String
        var text: String
    }

    @GTKActor static func probe(_ engine: any WebEngine) async throws -> Probe {
        let json = try await engine.callAsyncJavaScript(
            """
            let fetched;
            try { fetched = await (await fetch('/api')).text(); } catch (error) { fetched = 'failed: ' + error; }
            return JSON.stringify({ href: location.href, url: document.URL, origin: self.origin, cookie: document.cookie,
              fetched, title: document.title, text: document.body ? document.body.innerText : '' });
            """, arguments: [:])
        let text = try #require(json.flatMap { try? JSONDecoder().decode(String.self, from: Data($0.utf8)) })
        return try JSONDecoder().decode(Probe.self, from: Data(text.utf8))
    }

    /// Loads `path` in a new cold view and returns the URLs its load events named until it finished (or failed),
    /// what the engine's URL was right after `load` returned, and the document's probe and history lengths.
    @GTKActor func openCold(_ path: String, with prefetcher: NetworkPagePrefetcher) async throws -> ColdOpen {
        let container = try HybridContainer(configuration: configuration(prefetcher), factory: GTKEngineFactory())
        defer { container.close() }
        try await Self.clearLoopbackCookies(container.engine.cookieStore, keeping: jar)
        let sync = EngineCookieSync(jar: jar, store: container.engine.cookieStore)
        defer { sync.stop() }
        await sync.start()
        let events = container.loadEvents()
        let before = container.engine.url
        try container.load(try url(path))
        let afterLoadCall = container.engine.url
        // A page that never ends fails with the events it had, instead of holding the suite to its time limit.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            container.close()
        }
        defer { watchdog.cancel() }
        var named: [String] = []
        var ended = false
        for await event in events {
            switch event {
            case .started(let url), .committed(let url): named.append(url?.absoluteString ?? "nil")
            case .finished(let url):
                named.append(url?.absoluteString ?? "nil")
            case .failed(let failure):
                named.append("failed \(failure.url?.absoluteString ?? "nil")")
            default: continue
            }
            if case .finished = event { ended = true }
            if case .failed(let failure) = event, failure.kind != .cancelled { ended = true }
            if ended { break }
        }
        guard ended else { throw ColdOpenError.neverEnded(path: path, events: named) }
        let probe = try await Self.probe(container.engine)
        let length = try await container.engine.evaluateJavaScript("history.length")
        return ColdOpen(
            before: before, afterLoadCall: afterLoadCall, named: named, probe: probe, documentHistory: length,
            engineHistory: container.engine.historyLength)
    }

    enum ColdOpenError: Error, CustomStringConvertible {
        case neverEnded(path: String, events: [String])
        var description: String {
            switch self {
            case .neverEnded(let path, let events): "\(path) did not end within 20 s; its events: \(events)"
            }
        }
    }

    struct ColdOpen: Equatable {
        var before: URL?
        var afterLoadCall: URL?
        var named: [String]
        var probe: Probe
        var documentHistory: String?
        var engineHistory: Int?
    }

    /// The page URL each load event names (a failure as `failed KIND URL`), up to the first finish or the first
    /// failure that is not a cancellation.
    static func named(_ events: AsyncStream<PageLoadEvent>) async -> [String] {
        var named: [String] = []
        for await event in events {
            switch event {
            case .started(let url), .committed(let url), .finished(let url): named.append(url?.absoluteString ?? "nil")
            case .failed(let failure): named.append("failed \(failure.kind) \(failure.url?.absoluteString ?? "nil")")
            default: continue
            }
            if case .finished = event { break }
            if case .failed(let failure) = event, failure.kind != .cancelled { break }
        }
        return named
    }

    func requests(_ prefix: String) -> [String] { log.lines.withLock { $0.filter { $0.hasPrefix(prefix) } } }
    var natives: [String] { nativeFetches.lines.withLock { $0 } }

    func close() {
        server.stop()
        other.stop()
    }
}

/// The prefetcher's network, noting each request it is asked to send.
struct CountingNetwork: NetworkFetching {
    let base: any NetworkFetching
    let log: ServerLog

    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        log.note("GET \(request.url.path)?\(request.url.query ?? "")")
        return base.fetch(request, followRedirects: followRedirects, events: events)
    }
}
/// A network whose fetches fail after 300 ms: long enough for a cold view's web process to start meanwhile.
struct SlowFailingNetwork: NetworkFetching {
    struct Never: NetworkFetchCancelling { func cancel() {} }

    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        Task {
            try? await Task.sleep(for: .milliseconds(300))
            events(.failed("unreachable"))
        }
        return Never()
    }
}
#endif
