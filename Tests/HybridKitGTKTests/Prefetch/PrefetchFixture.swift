#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridKit
import HybridKitGTK
import HybridPackages
import HybridTestServers
import Synchronization
import Testing

/// A signed site whose page fetches the API a prefetch is declared for, in the way its query says, and a
/// development server that counts what reaches it.
final class PrefetchFixture: Sendable {
    let work = URL.temporaryDirectory.appending(path: "prefetch-\(UUID())")
    let server: LoopbackServer
    let site: HybridSite
    let jar = CookieJar()
    /// Requests that reached the server, as `METHOD path?query`.
    let log = ServerLog()

    static let declarations = PrefetchDeclarations(pages: [
        PagePrefetch(
            page: "/", requests: [PrefetchRequest(url: "/api/feed?user={user}", headers: ["X-Client": "shop {locale}"])]
        ),
        PagePrefetch(page: "/slow.html", requests: [PrefetchRequest(url: "/api/slow")]),
        PagePrefetch(page: "/late.html", requests: [PrefetchRequest(url: "/api/late")]),
    ])

    @GTKActor init() async throws {
        try GTKRuntime.shared.start(.headless)
        let pages = work.appending(path: "pages")
        try FileManager.default.createDirectory(at: pages, withIntermediateDirectories: true)
        try Data(Self.page.utf8).write(to: pages.appending(path: "index.html"))
        try Data(Self.page.utf8).write(to: pages.appending(path: "slow.html"))
        try Data(Self.page.utf8).write(to: pages.appending(path: "late.html"))
        try Data(Self.frame.utf8).write(to: pages.appending(path: "frame.html"))
        try Data(Self.cachedPage.utf8).write(to: pages.appending(path: "cached.html"))
        let keys = PackageKeyPair.generate()
        let zip = work.appending(path: "shop.zip")
        try PackagePacker().pack(
            directory: pages,
            options: PackOptions(
                id: "shop", version: SemanticVersion(major: 1, minor: 0, patch: 0), serves: ["https://shop.example/"]),
            keyPair: keys, to: zip)
        let log = self.log
        server = try await LoopbackServer.start(serving: work.appending(path: "none")) { router in
            let feed: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
                log.note("\(request.method) \(request.uri.path)?\(request.uri.query ?? "")")
                let user = request.uri.queryParameters.get("user") ?? "-"
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                headers[.setCookie] = "seen=\(user); Path=/"
                let client = request.headers.first { $0.name.canonicalName == "x-client" }?.value ?? "none"
                if let name = HTTPFields.Element.Name("X-Feed") { headers[name] = "client=\(client)" }
                let body = "{\"feed\":\"for \(user)\",\"cookie\":\"\(request.headers[.cookie] ?? "")\"}"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
            }
            // Fresh for a minute: what the HTTP cache keeps.
            router.get("img/:name") { request, _ in
                log.note("GET \(request.uri.path)?")
                return Response(
                    status: .ok, headers: [.contentType: "image/png", .cacheControl: "max-age=60"],
                    body: .init(byteBuffer: ByteBuffer(data: Self.png)))
            }
            router.get("api/fresh") { request, _ in
                log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                return Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=60"],
                    body: .init(byteBuffer: ByteBuffer(string: "{\"fresh\":true}")))
            }
            router.get("api/feed", use: feed)
            router.post("api/feed", use: feed)
            // The first call (the prefetch) answers after 1 s, with a cookie; later ones at once, without it.
            router.get("api/late") { request, _ in
                var headers: HTTPFields = [.contentType: "text/plain"]
                if log.note("GET /api/late?") == 1 {
                    try await Task.sleep(for: .seconds(1))
                    headers[.setCookie] = "late=1; Path=/"
                }
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "late")))
            }
            // The first call (the prefetch) hangs far longer than the page will wait for it.
            router.get("api/slow") { request, _ in
                if log.note("GET /api/slow") == 1 { try await Task.sleep(for: .seconds(8)) }
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "slow answer")))
            }
        }
        site = try HybridSite(
            "https://shop.example/",
            package: .bundled(zip, trustedKey: keys.verificationKey, store: work.appending(path: "store")),
            developmentServer: try #require(URL(string: server.origin)))
        jar.setCookie("sid=s1; Path=/", for: .http(try #require(URL(string: "https://shop.example/"))))
    }

    func prefetcher(
        policy: PrefetchPolicy = PrefetchPolicy(),
        network: (@Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching)? = nil
    ) throws -> FirstScreenPrefetcher {
        try FirstScreenPrefetcher(
            site: site, declarations: Self.declarations, policy: policy, jar: jar, network: network
        ) { ["user": "u1", "locale": "fr"] }
    }

    @GTKActor func container(_ prefetcher: FirstScreenPrefetcher?) throws -> HybridContainer {
        try HybridContainer(
            configuration: ContainerConfiguration(
                site: site, features: prefetcher.map { [FirstScreenPrefetch($0)] } ?? [],
                documentCookies: .automatic(jar: jar), pageMessages: .site),
            factory: GTKEngineFactory())
    }

    /// Opens the page with `mode` and returns what its request got.
    @GTKActor func open(_ mode: String, in container: HybridContainer, path: String = "") async throws -> PageResult {
        let url = try #require(URL(string: "https://shop.example/\(path)?mode=\(mode)"))
        let messages = try container.messages("result")
        try container.load(url)
        var iterator = messages.makeAsyncIterator()
        let message = try #require(await iterator.next())
        return try message.decode(PageResult.self)
    }

    func requests(_ prefix: String) -> [String] { log.lines.withLock { $0.filter { $0.hasPrefix(prefix) } } }

    func close() {
        server.stop()
        try? FileManager.default.removeItem(at: work)
    }

    struct PageResult: Codable, Equatable {
        var status: Int
        var body: String
        var feedHeader: String?
        var contentType: String?
        var cookie: String
        var prefetched: [Listed]?
    }

    struct Listed: Codable, Equatable {
        var method: String
        var url: String
        var credentials: String
        var state: String
    }

    /// Fetches as `mode` says, then posts what it got (and, with prefetch, what was prefetched for it).
    static let page = """
        <!doctype html><meta charset="utf-8"><title>shop</title>
        <script>
        const mode = new URLSearchParams(location.search).get('mode');
        const requests = {
          plain: ['/api/feed?user=u1', { headers: { 'X-Client': 'shop fr' } }],
          query: ['/api/feed?user=u2', { headers: { 'X-Client': 'shop fr' } }],
          post: ['/api/feed?user=u1', { method: 'POST', headers: { 'X-Client': 'shop fr' } }],
          include: ['/api/feed?user=u1', { credentials: 'include', headers: { 'X-Client': 'shop fr' } }],
          header: ['/api/feed?user=u1', { headers: { 'X-Client': 'shop en' } }],
          slow: ['/api/slow', {}],
        };
        async function report(response) {
          const body = await response.text();
          const prefetched = window.hybridPrefetch ? await hybridPrefetch.requests() : null;
          if (window.hybridPrefetch) await hybridPrefetch.firstScreen();
          hybrid.post('result', {
            status: response.status, body, feedHeader: response.headers.get('X-Feed'),
            contentType: response.headers.get('Content-Type'), cookie: document.cookie, prefetched });
        }
        if (mode === 'leave') {
          // Asks for the prefetch still on its way, then leaves for another document before it comes.
          fetch('/api/late').catch(() => {});
          setTimeout(() => { location.href = '/cached.html'; }, 150);
        } else if (mode === 'frame') {
          addEventListener('message', (event) => hybrid.post('result', event.data));
          document.write('<iframe src="/frame.html"></iframe>');
        } else if (mode === 'xhr') {
          const xhr = new XMLHttpRequest();
          xhr.open('GET', '/api/feed?user=u1');
          xhr.setRequestHeader('X-Client', 'shop fr');
          xhr.onload = () => report(new Response(xhr.responseText, { status: xhr.status,
            headers: { 'X-Feed': xhr.getResponseHeader('X-Feed') || '', 'Content-Type': xhr.getResponseHeader('Content-Type') || '' } }));
          xhr.send();
        } else {
          fetch(...requests[mode]).then(report, (error) => hybrid.post('result', { status: 0, body: String(error), cookie: document.cookie }));
        }
        </script>
        """

    /// A 1×1 PNG.
    static let png =
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
        ?? Data()

    /// Two network images and one API GET the package does not hold, then a post of what it got.
    static let cachedPage = """
        <!doctype html><meta charset="utf-8"><title>cached</title>
        <script>
        const image = (src) => new Promise((resolve) => {
          const img = new Image();
          img.onload = () => resolve('loaded');
          img.onerror = () => resolve('failed');
          img.src = src;
        });
        Promise.all([image('/img/a.png'), image('/img/b.png'), fetch('/api/fresh').then((r) => r.text())])
          .then((got) => hybrid.post('result', { status: 200, body: got.join(' '), cookie: document.cookie }));
        </script>
        """

    /// A same-origin frame making the page's request, and telling the page what it got.
    static let frame = """
        <!doctype html><script>
        fetch('/api/feed?user=u1', { headers: { 'X-Client': 'shop fr' } }).then(async (response) => {
          parent.postMessage({ status: response.status, body: await response.text(), feedHeader: response.headers.get('X-Feed'),
            contentType: response.headers.get('Content-Type'), cookie: document.cookie }, '*');
        });
        </script>
        """
}

/// What reached the server, as `METHOD path?query`.
final class ServerLog: Sendable {
    let lines = Mutex<[String]>([])

    /// Adds `line`; returns how many lines with the same path there are now.
    @discardableResult
    func note(_ line: String) -> Int {
        lines.withLock { lines in
            lines.append(line)
            let path = line.split(separator: "?").first
            return lines.filter { $0.split(separator: "?").first == path }.count
        }
    }
}

/// A network whose every fetch fails at once: a prefetch that cannot reach its server.
struct FailingNetwork: NetworkFetching {
    struct Never: NetworkFetchCancelling { func cancel() {} }

    func fetch(
        _ request: EngineRequest, followRedirects: Bool, events: @escaping @Sendable (NetworkFetchEvent) -> Void
    ) -> any NetworkFetchCancelling {
        events(.failed("unreachable"))
        return Never()
    }
}
#endif
