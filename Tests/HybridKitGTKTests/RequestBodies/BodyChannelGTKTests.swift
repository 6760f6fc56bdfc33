#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitTesting
import HybridKitGTK
import HybridNetwork
import HybridTestServers
import HybridTestSupport
import Testing

/// The body channel in real WebKitGTK: the hooks send Blob, File, FormData-with-file and stream bodies to a loopback
/// listener with the engine's own XHR, and the request then goes by id or through the proxy as before. Hostile
/// connections to the listener are made byte for byte, as any local process could.
@Suite(.serialized) struct BodyChannelGTKTests {
    /// A lab whose hooks send bodies over a channel of its own; close both when done.
    @GTKActor static func lab(
        proxy: (any RequestProxying)? = RequestBodiesTests.makeProxy(), config: InterceptionConfig? = nil,
        limits: LoopbackBodyChannel.Limits = LoopbackBodyChannel.Limits()
    ) async throws -> (BodiesLab, LoopbackBodyChannel) {
        let channel = try LoopbackBodyChannel.start(limits: limits)
        do {
            return (try await BodiesLab(proxy: proxy, config: config, bodyChannel: channel), channel)
        } catch {
            channel.stop()
            throw error
        }
    }

    /// A little of `text` on each side of `part`, for a failure message that does not print a megabyte.
    static func around(_ part: String, in text: String) -> String {
        guard let range = text.range(of: part) else { return "" }
        let lower = text.index(range.lowerBound, offsetBy: -200, limitedBy: text.startIndex) ?? text.startIndex
        let upper = text.index(range.upperBound, offsetBy: 200, limitedBy: text.endIndex) ?? text.endIndex
        return String(text[lower..<upper])
    }

    @Test @GTKActor func theConformanceSuitePassesOverTheChannel() async throws {
        let (lab, channel) = try await Self.lab()
        defer {
            lab.close()
            channel.stop()
        }
        let rows = try await BodiesConformance.run(in: lab)
        for row in BodiesConformance.unexplainedFailures(rows) { Issue.record("\(row)") }
        #expect(rows.count > 60)
        // Every Blob, File, FormData-with-file, stream and Request body of both strategies and both APIs: uploads,
        // and full-proxy fetches in one exchange.
        let over = channel.routes.uploadsOpened + channel.routes.proxiesOpened
        #expect(over >= 20, "\(channel.routes.uploadsOpened) uploads, \(channel.routes.proxiesOpened) proxied")
        #expect(channel.routes.proxiesOpened >= 5, "\(channel.routes.proxiesOpened) fetches in one exchange")
        #expect(lab.interception.handler.store.count == 0)
    }

    /// A 3 MB Blob by fetch and by XHR (with its upload progress) reaches the server whole, over the channel; with
    /// the channel stopped (an app suspended on iOS) the same POSTs go in slices and the page sees the same.
    @Test @GTKActor func aStoppedChannelFallsBackToSlicesUnnoticed() async throws {
        let logs = LogCapture.installed()
        logs.reset()
        let (lab, channel) = try await Self.lab()
        defer {
            lab.close()
            channel.stop()
        }
        let script = """
            (async () => {
              const blob = new Blob([new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251)]);
              const viaFetch = await (await fetch('/echo', { method: 'POST', body: blob })).json();
              const viaXHR = await new Promise((resolve) => { const x = new XMLHttpRequest(); x.open('POST', '/echo');
                let events = 0; x.upload.onprogress = () => { events++; };
                x.onload = () => resolve(Object.assign(JSON.parse(x.responseText), { events }));
                x.onerror = () => resolve({ error: true }); x.send(blob); });
              return [viaFetch.length, viaFetch.sha256, viaXHR.length, viaXHR.sha256, viaXHR.events > 0];
            })()
            """
        try await lab.load(lab.pageURL(.bodyByID))
        let over = try await lab.run(script)
        let fellBack = InterceptingSchemeHandler.channelFallbackAdvice
        #expect(logs.count("hybrid.bodies", fellBack) == 0)
        #expect(channel.routes.uploadsOpened == 2, "\(channel.routes.uploadsOpened)")
        #expect(channel.routes.preflightsAllowed == 1, "the engine asked \(channel.routes.preflightsAllowed) times")
        channel.stop()
        #expect(channel.endpoint == nil)
        try await lab.load(lab.pageURL(.fullProxy))
        let fallback = try await lab.run(script)
        #expect(over == fallback, "over the channel \(over), in slices \(fallback)")
        // Unnoticed by the page, not by the host: one warning, however many bodies fell back.
        #expect(logs.count("hybrid.bodies", fellBack) == 1, "\(logs.messages("hybrid.bodies"))")
        #expect(over.hasPrefix("[3145728,") && over.hasSuffix(",true]"), "\(over)")
        #expect(channel.routes.uploadsOpened == 2)
        #expect(lab.interception.handler.store.count == 0)
    }

    /// Once the channel stops (iOS takes a suspended app's socket), another process may listen on its port and
    /// answer as the channel would (CORS for anyone, a forged proxied answer). Pages made for the channel must never
    /// send it the key or a body: the stop reaches open pages (and later documents) through the switches, and a page
    /// that found the channel unreachable never tries it again. Bodies go in slices and arrive whole.
    @Test @GTKActor func aStoppedChannelsPortTakenByAnotherProcessIsSentNothing() async throws {
        let (lab, channel) = try await Self.lab()
        defer {
            lab.close()
            channel.stop()
        }
        let post = """
            (async () => {
              const blob = new Blob([new Uint8Array(300 * 1024).map((_, i) => i % 251)]);
              const viaFetch = await (await fetch('/echo', { method: 'POST', body: blob })).text();
              const viaXHR = await new Promise((resolve) => { const x = new XMLHttpRequest(); x.open('POST', '/echo');
                x.onload = () => resolve(x.responseText); x.onerror = () => resolve('error'); x.send(blob); });
              return [JSON.parse(viaFetch).length, JSON.parse(viaXHR).length];
            })()
            """
        let forged = Data(
            ("HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nAccess-Control-Allow-Headers: *\r\n"
                + "Access-Control-Allow-Methods: *\r\nAccess-Control-Expose-Headers: *\r\n"
                + "X-Hybrid-Head: %7B%22status%22%3A200%2C%22headers%22%3A%5B%5D%7D\r\n"
                + "Content-Length: 17\r\nConnection: close\r\n\r\n{\"length\":-4242}\n").utf8)
        for side in [BodiesLab.Side.fullProxy, .bodyByID] {
            try await lab.load(lab.pageURL(side))
            #expect(try await lab.run(post) == "[307200,307200]")
        }
        let port = channel.port
        channel.stop()
        let squatter = try RawHTTPServer(response: forged, port: port)
        defer { squatter.stop() }
        // The open page (body by id) hears of the stop; so do pages loaded after it.
        try await lab.waitFor(
            "(window.__hybridRequestSwitches.closedChannels || []).length === 1", timeout: .seconds(5))
        #expect(try await lab.run(post) == "[307200,307200]")
        try await lab.load(lab.pageURL(.fullProxy))
        #expect(try await lab.run(post) == "[307200,307200]")
        #expect(squatter.requests == 0, "the process on the channel's port was sent \(squatter.heads)")
        #expect(!squatter.heads.contains { $0.contains(lab.interception.handler.bodyKey) })
    }

    /// A channel that stops answering without telling anyone (the app was suspended and its socket reclaimed): the
    /// first body that finds it unreachable goes in slices, and the page never tries that port again, though another
    /// process listens there by then.
    @Test @GTKActor func aPageThatFoundTheChannelUnreachableNeverTriesItAgain() async throws {
        final class SilentlyGone: BodyChannel {
            let endpoint: String?
            let routes = BodyChannelRoutes()
            init(port: Int) { endpoint = "http://127.0.0.1:\(port)" }
        }
        // A port nothing listens on: taken, then given up.
        let free = try RawHTTPServer(response: Data())
        let port = free.port
        free.stop()
        let gone = SilentlyGone(port: port)
        let lab = try await BodiesLab(proxy: RequestBodiesTests.makeProxy(), bodyChannel: gone)
        defer { lab.close() }
        try await lab.load(lab.pageURL(.fullProxy))
        let post = """
            (async () => {
              const blob = new Blob([new Uint8Array(300 * 1024).map((_, i) => i % 251)]);
              return (await (await fetch('/echo', { method: 'POST', body: blob })).json()).length;
            })()
            """
        #expect(try await lab.run(post) == "307200")
        let squatter = try RawHTTPServer(
            response: Data("HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 0\r\n\r\n".utf8),
            port: port)
        defer { squatter.stop() }
        #expect(try await lab.run(post) == "307200")
        #expect(try await lab.run(post.replacingOccurrences(of: "fetch(", with: "window.fetch(")) == "307200")
        #expect(squatter.requests == 0, "the page tried the unreachable channel again: \(squatter.heads)")
    }

    /// What any local process can try against the port: nothing is read or stored without the page's key, from the
    /// page's origin, for a body that page reserved, of the reserved size, sent in time.
    @Test @GTKActor func hostileConnectionsAreRefusedAndStoreNothing() async throws {
        let (lab, channel) = try await Self.lab(
            proxy: nil, limits: .init(idleTimeout: .seconds(1), uploadTimeout: .seconds(3)))
        defer {
            lab.close()
            channel.stop()
        }
        try await lab.load(lab.pageURL(.bodyByID))
        let handler = lab.interception.handler
        let store = handler.store
        let origin = "hybrid://127.0.0.1:\(lab.server.port)"
        let owner = BodyOwner(origin: origin, scope: ObjectIdentifier(handler))
        let port = channel.port
        func head(
            _ id: String, key: String? = handler.bodyKey, origin: String? = origin, length: String? = "1000",
            host: String = "127.0.0.1:\(channel.port)", method: String = "POST", extra: String = ""
        ) -> String {
            var lines = ["\(method) \(BodyChannelRoutes.path) HTTP/1.1", "Host: \(host)"]
            lines.append("\(BodyChannelRoutes.bodyHeader): \(id)")
            if let origin { lines.append("Origin: \(origin)") }
            if let key { lines.append("\(BodyChannelRoutes.keyHeader): \(key)") }
            if let length { lines.append("Content-Length: \(length)") }
            return lines.joined(separator: "\r\n") + extra + "\r\n\r\n"
        }
        // Another page of the same channel (another view), with its own key.
        let otherPage = InterceptingSchemeHandler(wrapping: handler.inner, hop: EngineExecutorHop.immediate)
        channel.routes.register(otherPage)

        let id = try store.begin(size: 1000, contentType: nil, owner: owner)
        let refusals: [(String, String, Int)] = [
            ("no key", head(id, key: nil), 403),
            ("a wrong key", head(id, key: String(repeating: "0", count: 32)), 403),
            ("another page's key", head(id, key: otherPage.bodyKey), 400),
            ("another origin", head(id, origin: "hybrid://evil.example"), 400),
            ("no origin", head(id, origin: nil), 403),
            ("an opaque origin", head(id, origin: "null"), 403),
            ("no length (chunked)", head(id, length: nil, extra: "\r\nTransfer-Encoding: chunked"), 411),
            ("a rebinding host", head(id, host: "evil.example:\(port)"), 421),
            ("a GET", head(id, method: "GET"), 404),
            ("an unknown id", head(String(repeating: "a", count: 32)), 400),
            ("a malformed id", head("../../etc/passwd"), 400),
            ("another path", head(id).replacingOccurrences(of: "POST /body ", with: "POST /upload "), 404),
            // Last: it comes with the right key and origin, so that page's body is dropped.
            ("a length other than reserved", head(id, length: "999"), 400),
        ]
        for (what, request, status) in refusals {
            // Only the head is sent; the body it announces never comes: a refusal must not wait for it.
            let exchange = try await RawSocket.send(request, port: port, readFor: .seconds(5))
            #expect(
                exchange.response?.status == status, "\(what): \(String(decoding: exchange.received, as: UTF8.self))")
            #expect(exchange.closedByServer, "\(what): the connection stays open")
            #expect(exchange.response?.header("Access-Control-Allow-Origin") == nil, "\(what)")
            if what == "a length other than reserved" { continue }
            #expect(store.awaitsChannelUpload(id, origin: origin), "\(what): the body was touched")
        }
        // The length mismatch came with the right key and origin: that page's body is dropped.
        #expect(!store.awaitsChannelUpload(id, origin: origin))
        #expect(store.count == 0)

        // Garbage instead of HTTP.
        let garbage = try await RawSocket.send("\u{1}\u{2}NOT HTTP\r\n\r\n", port: port)
        #expect(garbage.closedByServer && garbage.response?.status == 400, "\(garbage.received)")

        // A preflight is answered only for an origin with a body reserved and waiting.
        let pending = try store.begin(size: 1000, contentType: nil, owner: owner)
        let preflight = "OPTIONS /body HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        let allowed = try await RawSocket.send(preflight + "Origin: \(origin)\r\n\r\n", port: port)
        #expect(allowed.response?.status == 204)
        #expect(allowed.response?.header("Access-Control-Allow-Origin") == origin)
        let foreign = try await RawSocket.send(preflight + "Origin: http://evil.example\r\n\r\n", port: port)
        #expect(foreign.response?.header("Access-Control-Allow-Origin") == nil)

        // A slow writer (10 bytes, then silence) is cut at the idle timeout and its body dropped.
        let slow = try await RawSocket.exchange(
            port: port,
            chunks: [Data(head(pending).utf8), Data(repeating: 1, count: 10), Data(repeating: 1, count: 10)],
            pause: .seconds(4), readFor: .seconds(5))
        #expect(slow.closedByServer && slow.elapsed < .seconds(4), "\(slow.elapsed)")
        #expect(store.count == 0)

        // A steady writer that never finishes within the upload timeout is cut too.
        let steadyID = try store.begin(size: 1000, contentType: nil, owner: owner)
        let drip = [Data(head(steadyID).utf8)] + Array(repeating: Data(repeating: 2, count: 10), count: 12)
        let steady = try await RawSocket.exchange(
            port: port, chunks: drip, pause: .milliseconds(500), readFor: .seconds(5))
        #expect(steady.closedByServer && steady.chunksSent < 12, "\(steady.chunksSent) chunks sent")
        #expect(steady.response?.status == 408, "\(String(decoding: steady.received, as: UTF8.self))")
        #expect(store.count == 0)

        #expect(channel.routes.uploadsOpened == 2)
    }

    /// A page over the store's limits gets a clear error; the channel opens nothing.
    @Test @GTKActor func aBodyOverTheStoreLimitIsRefusedBeforeTheChannel() async throws {
        var config = InterceptionConfig(chunkBytes: 256 * 1024)
        config.store.maxBodyBytes = 1 << 20
        let (lab, channel) = try await Self.lab(proxy: nil, config: config)
        defer {
            lab.close()
            channel.stop()
        }
        try await lab.load(lab.pageURL(.bodyByID))
        let answer = try await lab.run(
            "fetch('/echo', { method: 'POST', body: new Blob([new Uint8Array(2 * 1024 * 1024)]) }).then(() => 'sent', (e) => e.name + ': ' + e.message)"
        )
        #expect(answer.contains("TypeError") && answer.contains("limit"), "\(answer)")
        #expect(channel.routes.uploadsOpened == 0)
        #expect(lab.interception.handler.store.count == 0)
    }

    /// The key is in the hooks' closure only: a page that replaces every built-in the hooks could call while
    /// sending it (Headers and Array iteration, Object.assign, getters on Object.prototype for fetch options,
    /// XHR's methods, event listeners) sees POSTs over the channel and in slices but never the key.
    @Test @GTKActor func aHostilePageCannotReadTheKey() async throws {
        let (lab, channel) = try await Self.lab()
        defer {
            lab.close()
            channel.stop()
        }
        let key = lab.interception.handler.bodyKey
        for side in [BodiesLab.Side.bodyByID, .fullProxy] {
            try await lab.load(lab.pageURL(side))
            let seen = try await lab.run(
                """
                (async () => {
                  const seen = [];
                  const note = (value) => { try { seen.push(JSON.stringify(value) || String(value)); } catch (e) { seen.push(String(value)); } };
                  const grab = (target) => { try { for (const [k, v] of new Headers(target)) note(k + '=' + v); } catch (e) { note(target); } };
                  const H = Headers.prototype;
                  for (const name of ['set', 'append', 'get', 'has', 'forEach', 'entries']) {
                    const original = H[name];
                    H[name] = function (...args) { note(args); return original.apply(this, args); };
                  }
                  const iterate = H[Symbol.iterator];
                  H[Symbol.iterator] = function () { const out = iterate.call(this); note([...iterate.call(this)]); return out; };
                  const arrayIterate = Array.prototype[Symbol.iterator];
                  Array.prototype[Symbol.iterator] = function () { if (this.length < 100) note(this); return arrayIterate.call(this); };
                  const assign = Object.assign;
                  Object.assign = function (...args) { note(args); return assign.apply(this, args); };
                  for (const option of ['integrity', 'priority', 'window', 'duplex', 'keepalive', 'referrer',
                    'referrerPolicy', 'mode', 'redirect', 'credentials', 'cache', 'signal', 'body', 'method', 'headers']) {
                    Object.defineProperty(Object.prototype, option, { configurable: true,
                      get() { const own = Object.getOwnPropertyDescriptor(this, 'headers'); if (own && own.value) grab(own.value); return undefined; } });
                  }
                  const X = XMLHttpRequest.prototype;
                  for (const name of ['open', 'send', 'setRequestHeader']) {
                    const original = X[name];
                    X[name] = function (...args) { note(args); return original.apply(this, args); };
                  }
                  const listen = EventTarget.prototype.addEventListener;
                  EventTarget.prototype.addEventListener = function (...args) { note(String(args[1])); return listen.apply(this, args); };
                  const blob = new Blob([new Uint8Array(600 * 1024).fill(3)]);
                  const lengths = [];
                  lengths.push((await (await fetch('/echo', { method: 'POST', body: blob })).json()).length);
                  lengths.push(await new Promise((resolve) => { const x = new XMLHttpRequest(); x.open('POST', '/echo');
                    x.onload = () => resolve(JSON.parse(x.responseText).length); x.onerror = () => resolve(-1); x.send(blob); }));
                  navigator.sendBeacon('/echo', 'beacon');
                  for (const option of ['integrity', 'priority', 'window', 'duplex', 'keepalive', 'referrer',
                    'referrerPolicy', 'mode', 'redirect', 'credentials', 'cache', 'signal', 'body', 'method', 'headers']) {
                    delete Object.prototype[option];
                  }
                  Array.prototype[Symbol.iterator] = arrayIterate;
                  return { lengths, seen: seen.join('\\n'), resources: performance.getEntriesByType('resource').map((e) => e.name).join(' ') };
                })()
                """)
            let posted = seen.contains("\"lengths\":[614400,614400]")
            let leaked = seen.contains(key)
            #expect(posted, "\(side): \(seen.prefix(300))")
            #expect(!leaked, "\(side): the page saw the key in \(Self.around(key, in: seen))")
        }
        #expect(channel.routes.uploadsOpened + channel.routes.proxiesOpened >= 4)
    }

    /// A full-proxy fetch with a Blob goes in one exchange with the channel: no reservation, no upload, no second
    /// request; the page sees the server's answer as from the scheme's proxy path. An abort reaches the proxy, and a
    /// request the proxy refuses rejects with its message and is not sent again the other way.
    @Test @GTKActor func aFullProxyFetchGoesInOneExchange() async throws {
        let (lab, channel) = try await Self.lab()
        defer {
            lab.close()
            channel.stop()
        }
        try await lab.load(lab.pageURL(.fullProxy))
        let answer = try await lab.run(
            """
            (async () => {
              const blob = new Blob([new Uint8Array(2 * 1024 * 1024).map((_, i) => i % 253)], { type: 'application/x-test' });
              const response = await fetch('/echo?x=1', { method: 'POST', body: blob, headers: { 'X-Page': 'yes' } });
              const report = await response.json();
              const second = await (await fetch('/echo', { method: 'PUT', body: blob.slice(0, 5000) })).json();
              const aborted = await (async () => {
                const controller = new AbortController();
                const sent = fetch('/echo', { method: 'POST', body: blob, signal: controller.signal });
                controller.abort();
                try { await sent; return 'resolved'; } catch (error) { return error.name; }
              })();
              const refused = await fetch('http://evil.example/', { method: 'POST', body: blob })
                .then(() => 'sent', (error) => error.name + ': ' + error.message);
              return [report.length, report.method, report.contentType, response.status, response.url,
                response.headers.has('X-Hybrid-Head'), second.length, second.method, aborted, refused];
            })()
            """)
        #expect(answer.hasPrefix("[2097152,\"POST\",\"application/x-test\",200,"), "\(answer)")
        #expect(answer.contains("/echo?x=1\",false,5000,\"PUT\",\"AbortError\""), "\(answer)")
        #expect(answer.contains("TypeError: HybridKit proxy:") && answer.contains("evil.example"), "\(answer)")
        // One exchange per fetch (the aborted one may not have left the page); no upload and no body left.
        #expect((3...4).contains(channel.routes.proxiesOpened), "\(channel.routes.proxiesOpened)")
        #expect(channel.routes.uploadsOpened == 0)
        #expect(channel.routes.preflightsAllowed == 1, "the engine asked \(channel.routes.preflightsAllowed) times")
        #expect(lab.interception.handler.store.count == 0)
        #expect(lab.interception.handler.proxiedCount == 0)
    }

    /// A server whose answer has a big head: the channel carries that head in one header (`X-Hybrid-Head`,
    /// percent-encoded JSON, up to three times its size). Whatever the engine makes of it, the request reaches the
    /// server once: a page's POST is never sent a second time the other way because its answer was large.
    @Test(arguments: [8, 32, 64])
    @GTKActor func aBigAnswerHeadNeverSendsTheRequestTwice(_ kilobytes: Int) async throws {
        let (lab, channel) = try await Self.lab()
        defer {
            lab.close()
            channel.stop()
        }
        try await lab.load(lab.pageURL(.fullProxy))
        let token = "head-\(kilobytes)-\(UUID().uuidString)"
        let answer = try await lab.run(
            """
            (async () => {
              const blob = new Blob([new Uint8Array(300 * 1024)], { type: 'application/x-test' });
              try {
                const response = await fetch('/big-head/\(kilobytes)?token=\(token)', { method: 'POST', body: blob });
                return 'status ' + response.status + ' ' + (response.headers.get('X-Big-0') || '').length + ' '
                  + (await response.text());
              } catch (error) { return error.name + ': ' + error.message; }
            })()
            """)
        let hits = BodyEcho.bigHeadHits.withLock { $0[token] ?? 0 }
        #expect(hits == 1, "\(kilobytes) KB: the server saw the request \(hits) times; the page got \(answer)")
        #expect(channel.routes.proxiesOpened == 1)
        if kilobytes == 8 {
            #expect(answer.contains("status 200 4095 big head"), "\(answer)")
        } else if kilobytes == 64 {
            // Over the channel's bound: refused readably, with what to change.
            #expect(answer.contains("TypeError: HybridKit proxy:") && answer.contains("KiB bound"), "\(answer)")
        } else {
            #expect(answer.contains("status 200 4095 big head") || answer.contains("KiB bound"), "\(answer)")
        }
    }

    /// A server's head with raw UTF-8 past U+00FF (a reason phrase, a header value) and an odd status: the page
    /// reads the answer (values as bytes, as Fetch shows them) or a readable refusal, never a RangeError or a
    /// TypeError from `new Response`/`new Headers`, and the server sees the request once.
    @Test @GTKActor func aServersOddHeadIsReadNotThrown() async throws {
        let (lab, channel) = try await Self.lab()
        defer {
            lab.close()
            channel.stop()
        }
        let utf8 = try RawHTTPServer(
            response: Data(
                ("HTTP/1.1 200 OK \u{2603}\r\nX-Snow: \u{2603}\r\nContent-Type: text/plain\r\n"
                    + "Content-Length: 2\r\nConnection: close\r\n\r\nhi").utf8))
        defer { utf8.stop() }
        let odd = try RawHTTPServer(
            response: Data("HTTP/1.1 999 Odd\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".utf8))
        defer { odd.stop() }
        try await lab.load(lab.pageURL(.fullProxy))
        let answer = try await lab.run(
            """
            (async () => {
              const blob = new Blob([new Uint8Array(300 * 1024)]);
              const ask = (port) => fetch('http://127.0.0.1:' + port + '/x', { method: 'POST', body: blob })
                .then(async (response) => [response.status, response.statusText,
                  Array.from(response.headers.get('X-Snow') || '').map((c) => c.charCodeAt(0)).join(' '),
                  await response.text()].join('|'), (error) => error.name + ': ' + error.message);
              return [await ask(\(utf8.port)), await ask(\(odd.port))];
            })()
            """)
        #expect(answer.contains("\"200|OK") && answer.contains("|226 152 131|hi"), "\(answer)")
        #expect(answer.contains("TypeError: HybridKit proxy:") && answer.contains("status 999"), "\(answer)")
        #expect(utf8.requests == 1 && odd.requests == 1, "\(utf8.requests), \(odd.requests)")
        #expect(channel.routes.proxiesOpened == 2)
    }
}
#endif
