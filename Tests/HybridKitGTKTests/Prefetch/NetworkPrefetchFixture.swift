#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridKit
import HybridKitGTK
import HybridTestServers
import Testing

/// A network page (HTML from a loopback server, not from a package) whose script fetches the API a prefetch is
/// declared for, in the way its query says; a second origin (127.0.0.2) for frames and pages of another origin; a
/// jar kept in step with the engine. Cookies are named `np_*` and reset before each open: the engine's store is
/// shared by every view of the process, and cookies ignore ports.
final class NetworkPrefetchFixture: Sendable {
    let server: LoopbackServer
    let other: LoopbackServer
    let jar = CookieJar()
    /// Requests that reached the page's server, as `METHOD path?query`.
    let log = ServerLog()

    static let declarations = PrefetchDeclarations(pages: [
        PagePrefetch(
            page: "/page",
            requests: [
                PrefetchRequest(url: "/api/feed?user={query.user}", headers: ["X-Client": "news {locale}"]),
                PrefetchRequest(url: "/api/bin"),
            ]),
        PagePrefetch(page: "/slow", requests: [PrefetchRequest(url: "/api/slow")]),
        // The hostile page (`hostile`), one page per prefetch it races.
        PagePrefetch(
            page: "/hostile",
            requests: [PrefetchRequest(url: "/api/feed?user={query.user}", headers: ["X-Client": "news fr"])]),
        PagePrefetch(page: "/hostile-slow", requests: [PrefetchRequest(url: "/api/slow")]),
        PagePrefetch(page: "/hostile-drip", requests: [PrefetchRequest(url: "/api/drip")]),
        PagePrefetch(page: "/hostile-lang", requests: [PrefetchRequest(url: "/api/lang")]),
        PagePrefetch(page: "/hostile-moved", requests: [PrefetchRequest(url: "/api/moved")]),
        PagePrefetch(page: "/hostile-detour", requests: [PrefetchRequest(url: "/api/detour")]),
        PagePrefetch(page: "/hostile-late", requests: [PrefetchRequest(url: "/api/late")]),
    ])

    @GTKActor init() async throws {
        try GTKRuntime.shared.start(.headless)
        let log = self.log
        other = try await LoopbackServer.start(
            serving: URL.temporaryDirectory.appending(path: "none"), host: "127.0.0.2"
        ) { router in
            router.get("frame") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.foreignFrame)))
            }
            router.get("page") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.page)))
            }
            router.get("api/feed") { _, _ in
                Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "other origin's feed")))
            }
            router.get("landing") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: .init(byteBuffer: ByteBuffer(string: "<!doctype html><title>landing</title>")))
            }
            // Sends a redirect chain back where its query says.
            router.get("bounce") { request, _ in
                Response(status: .found, headers: [.location: request.uri.queryParameters.get("to") ?? "/"])
            }
        }
        let otherOrigin = other.origin
        server = try await LoopbackServer.start(serving: URL.temporaryDirectory.appending(path: "none")) { router in
            let feed: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
                log.note("\(request.method) \(request.uri.path)?\(request.uri.query ?? "")")
                let user = request.uri.queryParameters.get("user") ?? "-"
                var fields: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
                fields.append(HTTPFields.Element(name: .setCookie, value: "np_seen=\(user); Path=/"))
                fields.append(HTTPFields.Element(name: .setCookie, value: "np_hid=\(user); Path=/; HttpOnly"))
                let client = request.headers.first { $0.name.canonicalName == "x-client" }?.value ?? "none"
                if let name = HTTPFields.Element.Name("X-Feed") { fields[name] = "client=\(client)" }
                // A dedicated worker's request names the worker's script as its referrer.
                if request.headers[.referer]?.hasSuffix("/worker.js") == true { log.note("worker's \(request.method)") }
                let cookies = NetworkPrefetchFixture.own(request.headers[.cookie])
                let body = "{\"feed\":\"for \(user) \u{e9}\u{1F600}\",\"cookie\":\"\(cookies)\"}"
                return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
            }
            router.get("api/feed", use: feed)
            router.post("api/feed", use: feed)
            router.get("api/bin") { request, _ in
                log.note("GET \(request.uri.path)?")
                return Response(
                    status: .ok, headers: [.contentType: "application/octet-stream"],
                    body: .init(byteBuffer: ByteBuffer(bytes: Array(0...255) + [0xFF, 0xFE, 0x00, 0xC3])))
            }
            router.get("api/echo") { request, _ in
                Response(
                    status: .ok,
                    body: .init(byteBuffer: ByteBuffer(string: NetworkPrefetchFixture.own(request.headers[.cookie]))))
            }
            // The first call (the prefetch) hangs far longer than the page will wait for it.
            router.get("api/slow") { request, _ in
                if log.note("GET /api/slow?") == 1 { try await Task.sleep(for: .seconds(8)) }
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "slow answer")))
            }
            let documents = [
                (["page", "slow"], Self.page),
                (
                    [
                        "hostile", "hostile-slow", "hostile-drip", "hostile-lang", "hostile-moved", "hostile-detour",
                        "hostile-late",
                    ],
                    Self.hostile
                ),
            ]
            for (paths, document) in documents {
                for path in paths {
                    router.get(RouterPath(stringLiteral: path)) { request, _ in
                        log.note("GET \(request.uri.path)?\(request.uri.query ?? "")")
                        return Response(
                            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: document)))
                    }
                }
            }
            router.get("frame") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.frame)))
            }
            // The first call (the prefetch) sends its head (with a cookie) at once, then drips its body for 5 s;
            // later ones answer at once, without it.
            router.get("api/drip") { request, _ in
                let first = log.note("GET /api/drip?") == 1
                var fields: HTTPFields = [.contentType: "text/plain", .cacheControl: "no-store"]
                if first { fields.append(HTTPFields.Element(name: .setCookie, value: "np_dripped=1; Path=/")) }
                return Response(
                    status: .ok, headers: fields,
                    body: ResponseBody { writer in
                        for index in 0..<10 {
                            if first { try await Task.sleep(for: .milliseconds(500)) }
                            try await writer.write(ByteBuffer(string: "d\(index)"))
                        }
                        try await writer.finish(nil)
                    })
            }
            // Through the other origin and back to the feed: the engine's fetch then needs CORS for the feed.
            router.get("api/detour") { request, _ in
                log.note("GET /api/detour?")
                let back = "http://\(request.head.authority ?? "127.0.0.1")/api/feed?user=d"
                let to = back.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? back
                return Response(
                    status: .found, headers: [.location: "\(otherOrigin)/bounce?to=\(to)", .cacheControl: "no-store"])
            }
            // The first call (the prefetch) answers after 1 s, with a cookie; later ones at once, without it.
            router.get("api/late") { request, _ in
                var fields: HTTPFields = [.contentType: "text/plain", .cacheControl: "no-store"]
                if log.note("GET /api/late?") == 1 {
                    try await Task.sleep(for: .seconds(1))
                    fields.append(HTTPFields.Element(name: .setCookie, value: "np_late=1; Path=/"))
                }
                return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: "late")))
            }
            router.get("worker.js") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/javascript"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.worker)))
            }
            // A same-origin redirect to the feed.
            router.get("api/moved") { _, _ in
                log.note("GET /api/moved?")
                return Response(status: .found, headers: [.location: "/api/feed?user=m", .cacheControl: "no-store"])
            }
            router.get("sw.js") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/javascript"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.serviceWorker)))
            }
            // Content negotiation: the body is the request's Accept-Language.
            router.get("api/lang") { request, _ in
                log.note("GET /api/lang?")
                var fields: HTTPFields = [.contentType: "text/plain", .cacheControl: "no-store"]
                if let vary = HTTPFields.Element.Name("Vary") { fields[vary] = "Accept-Language" }
                let language = request.headers[.acceptLanguage] ?? "none"
                return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: language)))
            }
        }
    }

    /// The `np_*` cookies of a Cookie header, sorted.
    static func own(_ header: String?) -> String {
        (header ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("np_") }.sorted().joined(separator: "; ")
    }

    func url(_ path: String) throws -> URL { try #require(URL(string: server.origin + path)) }

    func prefetcher(
        policy: PrefetchPolicy = PrefetchPolicy(allowsPrivateAddresses: true),
        network: (@Sendable ((any HTTPCookieHandling)?) -> any NetworkFetching)? = nil
    ) throws -> FirstScreenPrefetcher {
        try FirstScreenPrefetcher(
            networkOrigin: server.origin, declarations: Self.declarations, policy: policy, jar: jar, network: network
        ) { ["locale": "fr"] }
    }

    /// A container for network pages, with prefetch when given one.
    @GTKActor func container(_ prefetcher: FirstScreenPrefetcher?) throws -> HybridContainer {
        try HybridContainer(
            configuration: ContainerConfiguration(
                features: prefetcher.map { [FirstScreenPrefetch($0)] } ?? [], documentCookies: .automatic(jar: jar)),
            factory: GTKEngineFactory())
    }

    /// Opens `path` (with the jar's `np_sid` and nothing else of ours in the engine) and returns what the page's
    /// script reported.
    @GTKActor func open(_ path: String, with prefetcher: FirstScreenPrefetcher?) async throws -> String {
        let container = try container(prefetcher)
        defer { container.close() }
        return try await open(path, in: container)
    }

    /// Opens `path` in `container` as `open(_:with:)` does; `read` says what to return once the host's load is
    /// done (by default what the page's script reported), while the engine's store still has the open's cookies.
    @GTKActor func open(
        _ path: String, in container: HybridContainer,
        read: @GTKActor (HybridContainer) async throws -> String = {
            try await NetworkPrefetchFixture.result($0.engine)
        }
    ) async throws -> String {
        let store = container.engine.cookieStore
        for cookie in try await store.cookies(for: nil) where cookie.name.hasPrefix("np_") {
            try await store.deleteCookie(cookie)
        }
        for cookie in jar.allCookies() where cookie.name.hasPrefix("np_") {
            jar.deleteCookie(name: cookie.name, domain: cookie.domain, path: cookie.path)
        }
        jar.setCookie("np_sid=s1; Path=/", for: .http(try url("/")))
        // What other suites left for the loopback hosts (cookies ignore ports): the engine would send it to the API,
        // which the prefetch did not, and network pages' answers then rightly miss.
        try await NetworkPageFixture.clearLoopbackCookies(store, keeping: jar)
        let sync = EngineCookieSync(jar: jar, store: store)
        await sync.start()
        let result: String
        do {
            try await container.loadAndWait(try url(path))
            result = try await read(container)
        } catch {
            sync.stop()
            throw error
        }
        // Leaves the shared store as it found it, for the suites after this one; once the sync stopped, or it would
        // carry the deletions into the jar while the next open fills it.
        sync.stop()
        for cookie in try await store.cookies(for: nil) where cookie.name.hasPrefix("np_") {
            try await store.deleteCookie(cookie)
        }
        return result
    }

    /// What the page's script reported (`window.__result`, a JSON string).
    @GTKActor static func result(_ engine: any WebEngine) async throws -> String {
        let json = try await engine.callAsyncJavaScript("return await window.__result;", arguments: [:])
        return try #require(json.flatMap { try? JSONDecoder().decode(String.self, from: Data($0.utf8)) })
    }

    func requests(_ prefix: String) -> [String] { log.lines.withLock { $0.filter { $0.hasPrefix(prefix) } } }

    func close() {
        server.stop()
        other.stop()
    }

    /// Fetches as `mode` says and reports everything a page can read of the response (but `Date`), then what the
    /// engine sends on a later request (its cookies), as JSON text in `window.__result`.
    static let page = """
        <!doctype html><meta charset="utf-8"><title>news</title>
        <script>
        const stringify = JSON.stringify;
        const mode = new URLSearchParams(location.search).get('mode');
        const own = (text) => text.split(';').map((part) => part.trim()).filter((part) => part.startsWith('np_')).sort().join('; ');
        const requests = {
          plain: ['/api/feed?user=u1', { headers: { 'X-Client': 'news fr' } }],
          query: ['/api/feed?user=u2', { headers: { 'X-Client': 'news fr' } }],
          post: ['/api/feed?user=u1', { method: 'POST', headers: { 'X-Client': 'news fr' } }],
          include: ['/api/feed?user=u1', { credentials: 'include', headers: { 'X-Client': 'news fr' } }],
          omit: ['/api/feed?user=u1', { credentials: 'omit', headers: { 'X-Client': 'news fr' } }],
          bin: ['/api/bin', {}],
          slow: ['/api/slow', {}],
        };
        async function describe(response) {
          const seenCookie = own(document.cookie);
          const headers = [];
          response.headers.forEach((value, name) => { if (name !== 'date') headers.push([name, value]); });
          const bytes = new Uint8Array(await response.arrayBuffer());
          let binary = '';
          for (let i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
          const echo = await (await fetch('/api/echo')).text();
          return { status: response.status, statusText: response.statusText, ok: response.ok, headers,
            body: btoa(binary), url: response.url, redirected: response.redirected, type: response.type,
            cookie: seenCookie, echo };
        }
        async function run() {
          if (mode === 'frames') {
            const reports = [];
            const done = new Promise((resolve) => addEventListener('message', (event) => {
              reports.push(event.data);
              if (reports.length === 2) resolve();
            }));
            for (const src of ['/frame', new URLSearchParams(location.search).get('other') + '/frame']) {
              const frame = document.createElement('iframe');
              frame.src = src;
              document.documentElement.appendChild(frame);
            }
            await done;
            return reports.sort((a, b) => (a.from < b.from ? -1 : 1));
          }
          if (mode === 'forged') {
            // The main frame's own script posting around the runtime, unstamped: refused.
            const handler = window.webkit.messageHandlers.hybridPrefetchAnswers;
            const message = stringify({ v: 1, k: 'fetch', t: 'guess', m: 'GET', u: location.origin + '/api/feed?user=u1',
              c: 'same-origin', h: [['x-client', 'news fr']] });
            return { reply: await handler.postMessage(message), then: await describe(await fetch(...requests.plain)) };
          }
          if (mode === 'replaced') {
            // A page that replaced what a runtime could rely on, then fetches through its own wrapper.
            const saved = window.fetch;
            Object.defineProperty(Request.prototype, 'url', { get() { return location.origin + '/api/feed?user=u2'; } });
            Object.defineProperty(Request.prototype, 'method', { get() { return 'GET'; } });
            window.fetch = function (input, init) { return saved.call(this, input, init); };
            const forged = { v: 1, a: 'hit', s: 200, st: 'OK', h: [], u: location.origin + '/forged', r: false, b: 'forged', e: 'text' };
            JSON.parse = () => forged;
            JSON.stringify = () => '{"v":1,"k":"fetch","t":"x","m":"GET","u":"' + location.origin + '/api/feed?user=u2","c":"same-origin","h":[]}';
            Headers.prototype.append = function () { throw new Error('replaced'); };
            String.prototype.charCodeAt = () => 0;
            Array.isArray = () => false;
            window.Response = function () { throw new Error('replaced'); };
            window.Headers = function () { throw new Error('replaced'); };
            window.Promise = function () { throw new Error('replaced'); };
            Object.defineProperty = () => { throw new Error('replaced'); };
            const response = await fetch(...requests[new URLSearchParams(location.search).get('then')]);
            const body = new Uint8Array(await response.arrayBuffer());
            let binary = '';
            for (let i = 0; i < body.length; i += 1) binary += String.fromCharCode(body[i]);
            return { status: response.status, body: btoa(binary), url: response.url, type: response.type,
              feed: response.headers.get('X-Feed') };
          }
          return describe(await fetch(...requests[mode]));
        }
        window.__result = run().then((result) => stringify(result), (error) => stringify({ error: String(error) }));
        </script>
        """

    /// A service worker that takes its page at once and answers its feed requests itself.
    static let serviceWorker = """
        self.addEventListener('install', () => self.skipWaiting());
        self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
        self.addEventListener('fetch', (event) => {
          if (new URL(event.request.url).pathname === '/api/feed') event.respondWith(new Response('from the worker'));
        });
        """

    /// A page that does to its `fetch` what a hostile or demanding page would, as its `mode` says, and reports
    /// what it read (JSON text in `window.__result`).
    static let hostile = """
        <!doctype html><meta charset="utf-8"><title>hostile</title>
        <script>
        const stringify = JSON.stringify;
        const mode = new URLSearchParams(location.search).get('mode');
        const plain = ['/api/feed?user=u1', { headers: { 'X-Client': 'news fr' } }];
        const outcome = async (promise) => {
          try {
            const response = await promise;
            return { status: response.status, body: await response.text(), url: response.url };
          } catch (error) {
            return { error: error.name };
          }
        };
        async function run() {
          if (mode === 'post-request') {
            // A Request with a body: the runtime must not take its body before the engine's fetch does.
            return outcome(fetch(new Request('/api/feed?user=u1', { method: 'POST', body: 'x', headers: { 'X-Client': 'news fr' } })));
          }
          if (mode === 'aborted-before') {
            const controller = new AbortController();
            controller.abort();
            const aborted = await outcome(fetch(plain[0], { ...plain[1], signal: controller.signal }));
            return { aborted, then: await outcome(fetch(...plain)) };
          }
          if (mode === 'aborted-while-waiting') {
            const controller = new AbortController();
            const start = performance.now();
            setTimeout(() => controller.abort(), 200);
            const aborted = await outcome(fetch('/api/slow', { signal: controller.signal }));
            return { aborted, ms: Math.round(performance.now() - start) };
          }
          if (mode === 'clone') {
            const response = await fetch(...plain);
            const copy = response.clone();
            return { url: copy.url, type: copy.type, redirected: copy.redirected, status: copy.status,
              same: (await copy.text()) === (await response.text()) };
          }
          if (mode === 'cookie') {
            // The page changes a cookie the prefetch was sent with, then asks at once: a miss.
            document.cookie = 'np_sid=s2; path=/';
            return outcome(fetch(...plain));
          }
          if (mode === 'lang') {
            return outcome(fetch('/api/lang', { headers: { 'Accept-Language': 'de' } }));
          }
          if (mode === 'lang-implicit') {
            // The page sets nothing: the engine sends its own Accept-Language, which the script cannot see.
            return outcome(fetch('/api/lang'));
          }
          if (mode === 'drip') {
            const start = performance.now();
            const got = await outcome(fetch('/api/drip'));
            return { ...got, ms: Math.round(performance.now() - start) };
          }
          if (mode === 'concurrent') {
            const all = await Promise.all([0, 1, 2, 3].map(() => outcome(fetch(...plain))));
            return all.map((got) => got.status + ' ' + got.url);
          }
          if (mode === 'late') {
            // Past the test's 1 s time-to-live, which is long enough that a loaded machine's cold view still
            // starts its navigation within it (a view starting later would make the container prefetch again).
            await new Promise((resolve) => setTimeout(resolve, 1700));
            return outcome(fetch(...plain));
          }
          if (mode === 'only-if-cached') {
            return outcome(fetch(plain[0], { ...plain[1], cache: 'only-if-cached', mode: 'same-origin' }));
          }
          if (mode === 'fragment') {
            return outcome(fetch('/api/feed?user=u1#part', plain[1]));
          }
          if (mode === 'flood') {
            // The page posts around the runtime in a loop (unstamped, a guessed token): each is refused.
            const handler = window.webkit.messageHandlers.hybridPrefetchAnswers;
            const message = stringify({ v: 1, k: 'list', t: 'guess' });
            const replies = await Promise.all(Array.from({ length: 100 }, () => handler.postMessage(message)));
            return replies.filter((reply) => reply && reply.a === 'refused').length;
          }
          if (mode === 'service-worker') {
            // A page its service worker controls: the worker answers its fetch, as it would without prefetch.
            if (!navigator.serviceWorker) return { error: 'no navigator.serviceWorker' };
            await navigator.serviceWorker.register('/sw.js');
            if (!navigator.serviceWorker.controller) {
              await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve));
            }
            return outcome(fetch(...plain));
          }
          if (mode === 'moved' || mode === 'moved-error' || mode === 'moved-manual') {
            const redirect = { moved: 'follow', 'moved-error': 'error', 'moved-manual': 'manual' }[mode];
            try {
              const response = await fetch('/api/moved', { redirect });
              return { status: response.status, url: response.url, redirected: response.redirected, type: response.type,
                body: await response.text() };
            } catch (error) {
              return { error: error.name };
            }
          }
          if (mode === 'detour') {
            try {
              const response = await fetch('/api/detour');
              return { status: response.status, url: response.url, type: response.type, body: await response.text() };
            } catch (error) {
              return { error: error.name };
            }
          }
          if (mode === 'leave') {
            // Asks for the prefetch still on its way, then goes to another origin before it comes.
            fetch('/api/late').catch(() => {});
            await new Promise((resolve) => setTimeout(resolve, 150));
            location.href = new URLSearchParams(location.search).get('other') + '/landing';
            return new Promise(() => {});
          }
          if (mode === 'worker') {
            // A dedicated worker of the page's origin makes the page's declared request; then the page does.
            const worker = new Worker('/worker.js');
            const fromWorker = await new Promise((resolve) => {
              worker.onmessage = (event) => resolve(event.data);
              worker.onerror = (event) => resolve({ error: 'worker: ' + event.message });
            });
            return { worker: fromWorker, page: await outcome(fetch(...plain)) };
          }
          if (mode === 'integrity' || mode === 'no-cors') {
            const init = mode === 'integrity' ? { integrity: 'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' } : { mode: 'no-cors' };
            return outcome(fetch(plain[0], { ...plain[1], ...init }));
          }
          if (mode === 'no-webkit') {
            // The page removes and fakes what a runtime might post through: the runtime took its own at start.
            delete window.webkit;
            window.webkit = { messageHandlers: { hybridPrefetchAnswers: { postMessage: async () => '{"v":1,"a":"miss"}' } } };
            window.__hybridFramePost = () => { throw new Error('replaced'); };
            return outcome(fetch(...plain));
          }
          return { error: 'no mode ' + mode };
        }
        window.__result = run().then((result) => stringify(result), (error) => stringify({ error: String(error) }));
        </script>
        """

    /// A dedicated worker: makes the hostile page's declared request (no runtime in workers) and posts what it got.
    static let worker = """
        fetch('/api/feed?user=u1', { headers: { 'X-Client': 'news fr' } })
          .then(async (response) => postMessage({ status: response.status, body: await response.text(), url: response.url }))
          .catch((error) => postMessage({ error: error.name }));
        """

    /// A same-origin frame: makes the page's declared request (no runtime in frames: to the network), and posts to
    /// the handler around it (unstamped: refused); reports both to the page.
    static let frame = """
        <!doctype html><script>
        (async () => {
          const response = await fetch('/api/feed?user=u1', { headers: { 'X-Client': 'news fr' } });
          const handler = window.webkit.messageHandlers.hybridPrefetchAnswers;
          let reply;
          try {
            reply = await handler.postMessage(JSON.stringify({ v: 1, k: 'fetch', t: 'guess', m: 'GET',
              u: location.origin + '/api/feed?user=u1', c: 'same-origin', h: [['x-client', 'news fr']] }));
          } catch (error) { reply = 'threw ' + error; }
          parent.postMessage({ from: 'same', status: response.status, body: await response.text(), reply }, '*');
        })();
        </script>
        """

    /// A frame of another origin posting to the handler: refused.
    static let foreignFrame = """
        <!doctype html><script>
        (async () => {
          let reply;
          try {
            reply = await window.webkit.messageHandlers.hybridPrefetchAnswers.postMessage(JSON.stringify({ v: 1,
              k: 'fetch', t: 'guess', m: 'GET', u: location.origin + '/api/feed?user=u1', c: 'same-origin', h: [] }));
          } catch (error) { reply = 'threw ' + error; }
          parent.postMessage({ from: 'other', reply }, '*');
        })();
        </script>
        """
}
#endif
