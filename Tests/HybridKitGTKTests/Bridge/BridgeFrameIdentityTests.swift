#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridKit
import HybridKitGTK
import Testing

/// Which frame is calling, and who may answer native: identity is the frame's security origin as the engine
/// applies it, and a native → page call is answered only by the document it was sent to.
@Suite(.serialized) struct BridgeFrameIdentityTests {
    struct Caller: Codable, Sendable, Equatable {
        let origin: String
        let verified: Bool
        let mainFrame: Bool
    }

    static let who = BridgeModule("who", access: .anyPage) { module in
        module.method("ami") { (_: NoArguments, call) in
            Caller(origin: call.origin, verified: call.originVerified, mainFrame: call.isMainFrame)
        }
    }
    static let guarded = BridgeModule("guarded", access: .origins("app://demo", allowsSubframes: true)) { module in
        module.method("text") { (text: String, _) in text }
    }

    struct Probe: Decodable {
        struct Outcome: Decodable {
            let value: JSONValue?
            let error: String?
        }
        let probe: String
        let who: Outcome
        let guarded: Outcome
        /// What `hybrid.modules` told the frame of.
        let modules: [String]
    }

    /// Loads frames of every kind into the main page and collects what each probe reports.
    @GTKActor
    static func probes(_ page: TestPage, frames: [String: String], count: Int) async throws -> [String: Probe] {
        let json = String(decoding: try JSONEncoder().encode(frames), as: UTF8.self)
        _ = try await page.evaluate(
            """
            (() => {
              window.probes = [];
              window.addEventListener('message', (event) => {
                if (event.data && event.data.probe !== undefined) window.probes.push(event.data);
              });
              const frames = \(json);
              for (const [name, html] of Object.entries(frames)) {
                const holder = document.createElement('div');
                holder.innerHTML = html;
                document.body.appendChild(holder.firstElementChild);
              }
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.probes.length === \(count)")
        let probes: [Probe] = try await page.evaluate("window.probes")
        return Dictionary(uniqueKeysWithValues: probes.map { ($0.probe, $0) })
    }

    static func caller(_ probe: Probe?) throws -> Caller? {
        guard let value = probe?.who.value else { return nil }
        return try JSONDecoder().decode(Caller.self, from: JSONEncoder().encode(value))
    }

    /// A sandboxed iframe of the app's own page has an opaque origin: modules limited to the app's origin
    /// refuse it, and callers see `null`, however its URL reads. Frames that inherit their creator's origin
    /// (`srcdoc`, `about:blank`) are the creator's.
    @Test @GTKActor func framesAreKnownByTheirSecurityOrigin() async throws {
        let page = try await TestPage.ready(modules: [Self.who, Self.guarded])
        defer { page.close() }
        #expect(page.view.verifiesMessageFrames, "the frame-stamping web extension must be loaded")
        let pages = try #require(TourPages.directory)
        let probeScript = try String(
            contentsOf: pages.appendingPathComponent("test/frame-probe.html"), encoding: .utf8)
        let inline = probeScript.replacingOccurrences(of: "location.hash.slice(1)", with: "'srcdoc'")
        let escaped = inline.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
        let probes = try await Self.probes(
            page,
            frames: [
                "plain": #"<iframe src="app://demo/test/frame-probe.html#plain"></iframe>"#,
                "sandboxed":
                    #"<iframe sandbox="allow-scripts" src="app://demo/test/frame-probe.html#sandboxed"></iframe>"#,
                "srcdoc": "<iframe srcdoc=\"\(escaped)\"></iframe>",
                "other": #"<iframe src="app://other/test/frame-probe.html#other"></iframe>"#,
            ], count: 4)

        #expect(try Self.caller(probes["plain"]) == Caller(origin: "app://demo", verified: true, mainFrame: false))
        #expect(probes["plain"]?.guarded.value == .string("hi"))

        // The hole: the sandboxed frame's URL is the app's, its origin is not.
        #expect(try Self.caller(probes["sandboxed"]) == Caller(origin: "null", verified: true, mainFrame: false))
        #expect(probes["sandboxed"]?.guarded.error == "denied")

        #expect(try Self.caller(probes["srcdoc"]) == Caller(origin: "app://demo", verified: true, mainFrame: false))
        #expect(try Self.caller(probes["other"]) == Caller(origin: "app://other", verified: true, mainFrame: false))
        #expect(probes["other"]?.guarded.error == "denied")
        // A frame is told only of the modules it may call.
        #expect(probes["plain"]?.modules == ["guarded", "who"])
        #expect(probes["sandboxed"]?.modules == ["who"])
        #expect(probes["other"]?.modules == ["who"])
    }

    /// Native's calls into the main page are answered by the main page only: a sandboxed or cross-origin
    /// frame that registers the same handler, feeds its own runtime forged calls with guessed ids, and posts
    /// forged replies around the runtime, answers nothing and runs nothing.
    @Test @GTKActor func onlyTheCalledDocumentAnswersNative() async throws {
        let page = try await TestPage.ready(modules: [Self.who])
        defer { page.close() }
        _ = try await page.evaluate(
            """
            (() => {
              hybrid.handle('secret', () => new Promise((resolve) => setTimeout(() => resolve('main page'), 50)));
              window.hostile = {}; window.hostileReady = [];
              window.addEventListener('message', (event) => {
                if (event.data && event.data.hostile) window.hostile[event.data.hostile] = event.data.ran;
                if (event.data && event.data.hostileReady) window.hostileReady.push(event.data.hostileReady);
              });
              for (const [name, attributes] of [['sandboxed', 'sandbox="allow-scripts"'], ['other', ''],
                                                ['same', '']]) {
                const host = name === 'other' ? 'other' : 'demo';
                const holder = document.createElement('div');
                holder.innerHTML = `<iframe ${attributes} src="app://${host}/test/hostile-frame.html#${name}"></iframe>`;
                document.body.appendChild(holder.firstElementChild);
              }
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.hostileReady.length === 3")
        for round in 0..<20 {
            let answer = try await page.page.bridge.callJavaScript("secret", round, as: String.self)
            #expect(answer == "main page", "round \(round)")
        }
        _ = try await page.evaluate(
            "Array.from(document.querySelectorAll('iframe'), (f) => f.contentWindow.postMessage('report', '*')).length",
            as: Int.self)
        try await page.waitFor("Object.keys(window.hostile).length === 3")
        let ran: [String: Int] = try await page.evaluate("window.hostile")
        #expect(ran == ["sandboxed": 0, "other": 0, "same": 0], "forged native calls ran a frame's handler")
    }

    /// A cross-origin frame receives relayed events (and can read the relay's secret), but the app frames it
    /// embeds do not take events from it: only from the main frame or a same-origin parent.
    @Test @GTKActor func aCrossOriginFrameCannotForgeEventsForTheFramesItEmbeds() async throws {
        let page = try await TestPage.ready(modules: [Self.who])
        defer { page.close() }
        _ = try await page.evaluate(
            """
            (() => {
              window.relay = { forged: 0, victimGot: [], victimReady: false };
              window.addEventListener('message', (event) => {
                const data = event.data || {};
                if (data.forged) window.relay.forged += 1;
                if (data.victimReady) window.relay.victimReady = true;
                if ('victimGot' in data) window.relay.victimGot.push(data.victimGot);
              });
              const frame = document.createElement('iframe');
              frame.src = 'app://other/test/relay-forger.html';
              document.body.appendChild(frame);
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.relay.victimReady")
        try page.page.bridge.emit("bait", 1)
        try await page.waitFor("window.relay.forged === 1")
        // The forged message was posted before the forger told the top; give it time to arrive anyway.
        try await Task.sleep(for: .milliseconds(500))
        try page.page.bridge.emit("bait", 2)
        try await page.waitFor("window.relay.forged === 2")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await page.evaluate("window.relay.victimGot", as: [String].self) == [])
    }

    /// The same data reaches every frame the same way: a `__proto__` key stays an own key, in results and
    /// events, in the main frame (evaluated batches) as in subframes (replies and relayed events).
    @Test @GTKActor func protoKeysStayKeysInEveryFrame() async throws {
        let data = BridgeModule("data", access: .anyPage) { module in
            module.method("tricky") { (_: NoArguments, _) in
                ["__proto__": JSONValue.object(["polluted": .bool(true)]), "plain": .number(1)]
            }
        }
        let page = try await TestPage.ready(modules: [data])
        defer { page.close() }
        let inspect = """
            const inspect = (value) => ({
              keys: Object.keys(value).sort(),
              ownProto: Object.prototype.hasOwnProperty.call(value, '__proto__'),
              plainPrototype: Object.getPrototypeOf(value) === Object.prototype,
              polluted: value.polluted === true,
            });
            """
        _ = try await page.evaluate(
            """
            (() => {
              \(inspect)
              window.seen = {};
              hybrid.on('tricky', (value) => { window.seen.mainEvent = inspect(value); });
              hybrid.call('data', 'tricky').then((value) => { window.seen.mainResult = inspect(value); });
              window.addEventListener('message', (event) => {
                if (event.data && event.data.sub) Object.assign(window.seen, event.data.sub);
              });
              const frame = document.createElement('iframe');
              frame.src = 'app://demo/test/blank.html';
              frame.onload = () => {
                const script = frame.contentDocument.createElement('script');
                script.textContent = `
                  \(inspect)
                  hybrid.on('tricky', (value) => parent.postMessage({ sub: { subEvent: inspect(value) } }, '*'));
                  hybrid.call('data', 'tricky').then((value) => {
                    parent.postMessage({ sub: { subResult: inspect(value) } }, '*');
                    parent.postMessage({ sub: { subReady: true } }, '*');
                  });`;
                frame.contentDocument.body.appendChild(script);
              };
              document.body.appendChild(frame);
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.seen.subReady && window.seen.mainResult")
        try page.page.bridge.emit(
            "tricky", ["__proto__": JSONValue.object(["polluted": .bool(true)]), "plain": .number(1)])
        try await page.waitFor("window.seen.mainEvent && window.seen.subEvent")
        struct Seen: Decodable, Equatable {
            let keys: [String]
            let ownProto: Bool
            let plainPrototype: Bool
            let polluted: Bool
        }
        let seen: [String: Seen] = try await page.evaluate(
            "(({ subReady, ...rest }) => rest)(window.seen)")
        let expected = Seen(keys: ["__proto__", "plain"], ownProto: true, plainPrototype: true, polluted: false)
        #expect(seen == ["mainResult": expected, "mainEvent": expected, "subResult": expected, "subEvent": expected])
    }
}
#endif
