#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK
import HybridTestServers
import Testing

@testable import HybridKit

/// A page that replaces every built-in the request hooks could touch, after they ran, in real WebKitGTK.
///
/// The traps record every string they are shown (arguments, `this`, and the values of objects passed in, records
/// without a prototype included) and lie where a lie could turn a Blob into something the hooks would key
/// (`Object.prototype.toString`, `ArrayBuffer`'s `byteLength`, `Blob.prototype.arrayBuffer`; `Function.prototype
/// .call` and `apply` record what they are given). What must hold: no trap ever sees the body key, native never reads a Blob
/// body (reading one crashes this process: the test would not finish), and every request either arrives byte for
/// byte or fails as a network error.
@Suite(.serialized) struct HostileBuiltinsGTKTests {
    /// Installs the traps in `target` (a window); `window.__traps` records what they saw.
    static let traps = #"""
        (function (target) {
          const realApply = Reflect.apply, defineProperty = Object.defineProperty, getDescriptor =
            Object.getOwnPropertyDescriptor, ownKeys = Reflect.ownKeys, getPrototypeOf = Object.getPrototypeOf,
            realToString = Object.prototype.toString, realTest = RegExp.prototype.test, realBlobSize = getDescriptor(Blob.prototype, 'size').get;
          const seen = new Set(), setAdd = Set.prototype.add, setValues = Set.prototype.values,
            setNext = Object.getPrototypeOf(new Set().values()).next, stringIncludes = String.prototype.includes;
          let busy = false, fired = 0;
          const isBlob = (value) => { try { realApply(realBlobSize, value, []); return true; } catch (e) { return false; } };
          function note(value, depth) {
            if (typeof value === 'string') { if (seen.size < 200000) realApply(setAdd, seen, [value]); return; }
            if (depth > 2 || value === null || typeof value !== 'object') return;
            // Plain records and arrays only (options, header records, argument lists): walking DOM objects on every
            // call would slow the page to a halt and cannot hold a string the hooks put there.
            const proto = getPrototypeOf(value);
            if (proto !== null && proto !== Object.prototype && proto !== Array.prototype) return;
            let keys;
            try { keys = ownKeys(value); } catch (e) { return; }
            for (let i = 0; i < keys.length && i < 64; i++) {
              const key = keys[i];
              if (typeof key === 'string') note(key, depth + 1);
              let descriptor;
              try { descriptor = getDescriptor(value, key); } catch (e) { continue; }
              if (descriptor && 'value' in descriptor) note(descriptor.value, depth + 1);
            }
          }
          function record(self, args) {
            if (busy) return;
            busy = true;
            try {
              fired++;
              for (let i = 0; i < args.length; i++) note(args[i], 0);
              note(self, 0);
            } finally { busy = false; }
          }
          // Lies that would make a Blob pass for an ArrayBuffer, 
          const lies = new Map([
            ['Object.prototype.toString', (real) => function () {
              record(this, arguments);
              return isBlob(this) ? '[object ArrayBuffer]' : realApply(real, this, arguments);
            }],
            ['Blob.prototype.arrayBuffer', (real) => function () { record(this, arguments); return Promise.resolve(this); }],
          ]);
          const wrap = (name, real) => {
            const lie = lies.get(name);
            if (lie) return lie(real);
            return function () { record(this, arguments); return realApply(real, this, arguments); };
          };
          const roots = ['Object', 'Function', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'Promise',
            'ArrayBuffer', 'DataView', 'Uint8Array', 'Map', 'Set', 'WeakMap', 'WeakSet', 'RegExp', 'Error', 'Blob',
            'File', 'FormData', 'URLSearchParams', 'URL', 'Headers', 'Request', 'Response', 'ReadableStream',
            'XMLHttpRequest', 'XMLHttpRequestEventTarget', 'XMLHttpRequestUpload', 'EventTarget', 'Event',
            'ProgressEvent', 'AbortController', 'AbortSignal', 'TextEncoder', 'Node', 'Document', 'Element',
            'HTMLFormElement', 'Navigator', 'DOMException', 'JSON', 'Reflect'];
          const holders = [];
          for (const name of roots) {
            const root = target[name];
            if (!root) continue;
            holders.push([name, root]);
            if (root.prototype) holders.push([name + '.prototype', root.prototype]);
          }
          holders.push(['TypedArray.prototype', getPrototypeOf(Uint8Array.prototype)]);
          holders.push(['ArrayIterator', getPrototypeOf([][Symbol.iterator]())]);
          holders.push(['FormDataIterator', getPrototypeOf(new target.FormData().entries())]);
          let replaced = 0;
          for (const [holderName, holder] of holders) {
            for (const key of ownKeys(holder)) {
              if (key === 'constructor' || key === 'prototype' || key === 'length' || key === 'name') continue;
              const descriptor = getDescriptor(holder, key);
              if (!descriptor || !descriptor.configurable) continue;
              const name = holderName + '.' + String(typeof key === 'symbol' ? key.description : key);
              if (typeof descriptor.value === 'function') {
                defineProperty(holder, key, { ...descriptor, value: wrap(name, descriptor.value) });
                replaced++;
              } else if (descriptor.get || descriptor.set) {
                const get = descriptor.get, set = descriptor.set;
                const lyingLength = name === 'ArrayBuffer.prototype.byteLength';
                defineProperty(holder, key, {
                  configurable: true, enumerable: descriptor.enumerable,
                  get: get && function () {
                    record(this, arguments);
                    if (lyingLength && isBlob(this)) return 9;
                    return realApply(get, this, []);
                  },
                  set: set && function (value) { record(this, arguments); return realApply(set, this, [value]); },
                });
                replaced++;
              }
            }
          }
          target.__traps = {
            replaced,
            get fired() { return fired; },
            // For traps a test adds itself (getters on Object.prototype): records what the getter was shown.
            record: (self) => record(self, []),
            // Runs with the traps quiet, so the text asked about is not recorded by the search itself.
            // Whether a string of 32 hex digits passed through a trap: the bridge's keys have that form (a
            // document's token and the runtime id have 16), and nothing else on the test page does.
            sawKeyShapedString: () => {
              busy = true;
              try {
                const shape = /[0-9a-f]{32}/;
                const values = realApply(setValues, seen, []);
                for (let step = realApply(setNext, values, []); !step.done; step = realApply(setNext, values, [])) {
                  if (realApply(realTest, shape, [step.value])) return true;
                }
                return false;
              } finally { busy = false; }
            },
            sawPart: (text) => {
              busy = true;
              try {
                const values = realApply(setValues, seen, []);
                for (let step = realApply(setNext, values, []); !step.done; step = realApply(setNext, values, [])) {
                  if (realApply(stringIncludes, step.value, [text])) return true;
                }
                return false;
              } finally { busy = false; }
            },
          };
        })(window)
        """#

    /// What each hostile send ended as: "ok <length>" when the echo server got that many bytes, else the error.
    static let sends = #"""
        (async () => {
          const outcome = (promise) => promise.then((r) => r.json().then((e) => 'ok ' + e.length),
            (e) => 'error ' + (e && e.name));
          const blob = new Blob(['blob body!']);
          const file = new File(['file body'], 'f.txt');
          const form = new FormData(); form.append('who', 'x'); form.append('file', file);
          const results = {};
          results.fetchBlob = await outcome(fetch('/echo', { method: 'POST', body: blob }));
          results.fetchRequest = await outcome(fetch(new Request('/echo', { method: 'POST', body: blob })));
          results.fetchForm = await outcome(fetch('/echo', { method: 'POST', body: form }));
          results.fetchText = await outcome(fetch('/echo', { method: 'POST', body: 'plain text' }));
          results.fetchBytes = await outcome(fetch('/echo', { method: 'POST', body: new Uint8Array([1, 2, 3]) }));
          results.xhrBlob = await new Promise((resolve) => {
            const x = new XMLHttpRequest(); x.open('POST', '/echo');
            x.onload = () => resolve('ok ' + JSON.parse(x.responseText).length);
            x.onerror = () => resolve('error'); x.send(blob);
          });
          results.beacon = String(navigator.sendBeacon('/echo', blob));
          return results;
        })()
        """#

    /// A same-origin about:blank frame whose fetch and XHR the page replaced before anything touched the frame:
    /// the hooks installed there later must not call the page's functions with the key.
    static let frameSends = #"""
        (async () => {
          const frame = document.createElement('iframe');
          document.body.appendChild(frame);
          const child = window[0];
          const leaks = [];
          const realFetch = child.fetch;
          child.fetch = function (url, init) { leaks.push(JSON.stringify(init && init.headers)); return realFetch.apply(child, arguments); };
          const realSet = child.XMLHttpRequest.prototype.setRequestHeader;
          child.XMLHttpRequest.prototype.setRequestHeader = function (name, value) { leaks.push(name + ':' + value); return realSet.apply(this, arguments); };
          const w = frame.contentWindow;
          const text = await w.fetch('/echo', { method: 'POST', body: 'from the frame' }).then((r) => r.json())
            .then((e) => 'ok ' + e.length, (e) => 'error ' + e.name);
          const blob = await w.fetch('/echo', { method: 'POST', body: new w.Blob(['frame blob']) }).then((r) => r.json())
            .then((e) => 'ok ' + e.length, (e) => 'error ' + e.name);
          return { text, blob, leaks: leaks.join('\n') };
        })()
        """#

    @Test(arguments: [BodiesLab.Side.bodyByID, .fullProxy])
    @GTKActor func noReplacedBuiltInSeesTheKeyOrMakesNativeReadABlob(side: BodiesLab.Side) async throws {
        let lab = try await BodiesLab(proxy: side == .fullProxy ? RequestBodiesTests.makeProxy() : nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(side))
        _ = try await lab.view.evaluateJavaScript(Self.traps + "; true")
        let replaced = try await lab.run("window.__traps.replaced")
        #expect((Int(replaced) ?? 0) > 300, "replaced \(replaced) built-ins")

        let answer = try await lab.run(Self.sends)
        let results = try JSONDecoder().decode([String: String].self, from: Data(answer.utf8))
        // Still alive: native read no Blob body. Each send arrived whole or failed as a network error.
        let expected = [
            "fetchBlob": 10, "fetchRequest": 10, "fetchText": 10, "fetchBytes": 3, "xhrBlob": 10,
        ]
        for (name, length) in expected {
            let result = results[name] ?? "missing"
            #expect(result == "ok \(length)" || result.hasPrefix("error"), "\(name): \(result)")
        }
        #expect(results["fetchText"] == "ok 10", "text still arrives: \(results)")
        #expect(results["fetchBytes"] == "ok 3", "bytes still arrive: \(results)")
        let form = results["fetchForm"] ?? "missing"
        #expect(form.hasPrefix("ok ") || form.hasPrefix("error"), "\(form)")

        let frame = try await lab.run(Self.frameSends)
        #expect(!frame.contains(lab.interception.handler.bodyKey), "the page's frame functions saw the key: \(frame)")
        #expect(frame.contains("\"text\":\"ok 14\""), "\(frame)")

        let fired = try await lab.run("window.__traps.fired")
        #expect((Int(fired) ?? 0) > 0, "the traps ran (\(fired) calls), so the check below can fail")
        let key = lab.interception.handler.bodyKey
        let leaked = try await lab.run("window.__traps.sawPart('\(key)')")
        #expect(leaked == "false", "a replaced built-in saw the body key")
        // The control: a record without a prototype handed to a replaced built-in, as the hooks once handed their
        // keyed options to `Function.prototype.call`, is seen, so the check above could fail.
        let control = try await lab.run(
            "(() => { const record = Object.create(null); record['X-Hybrid-Body-Key'] = 'control-7f3a';"
                + " Object.prototype.toString.call(record); return window.__traps.sawPart('control-7f3a'); })()")
        #expect(control == "true", "the traps did not see a record's value: the check is blind")
    }

    static let echo = BridgeModule("echo", access: .origins("app://demo")) { module in
        module.method("say") { (text: String, _) async throws -> String in text }
        module.method("saySync", synchronous: true) { (text: String, _) async throws -> String in text }
    }

    /// The bridge runtime's secrets: the key that proves native's deliveries, the key on synchronous prompts and
    /// the relay secret (all 32 hex digits). With every built-in replaced after the runtime ran, calls, synchronous
    /// calls, events and published state still work, and no trap sees a string of that shape.
    @Test @GTKActor func noReplacedBuiltInSeesTheBridgesKeys() async throws {
        let page = try await TestPage.ready(modules: [Self.echo])
        defer { page.close() }
        _ = try await page.view.evaluateJavaScript(Self.traps + "; true")
        #expect(try await page.evaluate("window.__traps.replaced > 300", as: Bool.self))
        #expect(
            try await page.evaluate(
                "(() => { window.__heard = []; hybrid.on('news', (d) => window.__heard.push(d)); return true; })()",
                as: Bool.self))
        try page.page.bridge.emit("news", "from native")
        try page.page.bridge.publishState("mood", "calm", module: "echo")
        #expect(try await page.settle("hybrid.call('echo', 'say', 'async hello')", as: String.self) == "async hello")
        #expect(
            try await page.evaluate("hybrid.callSync('echo', 'saySync', 'sync hello')", as: String.self) == "sync hello"
        )
        try await page.waitFor("window.__heard.length === 1")
        #expect(try await page.evaluate("window.__heard[0]", as: String.self) == "from native")
        #expect(try await page.evaluate("window.__traps.fired > 0", as: Bool.self), "the traps ran")
        #expect(
            try await page.evaluate("window.__traps.sawKeyShapedString()", as: Bool.self) == false,
            "a replaced built-in saw one of the bridge's keys")
        // The control: the same search finds a key-shaped string handed to a replaced built-in.
        #expect(
            try await page.evaluate(
                "(String.prototype.trim.call('0123456789abcdef0123456789abcdef'), window.__traps.sawKeyShapedString())",
                as: Bool.self), "the search is blind")
    }

    static let bytes = BridgeModule("bytes", access: .origins("app://demo")) { module in
        module.method("reverse") { (data: Data, _) async throws -> Data in Data(data.reversed()) }
        module.method("parts") { (parts: [Data], _) async throws -> [Data] in parts.map { Data($0.reversed()) } }
    }

    /// Binary values with every built-in replaced after the runtime ran: the ids of uploads and downloads
    /// (32 hex digits, like the bridge's keys) pass through no trap, and the bytes still arrive both ways. The
    /// runtime used to check ids with `RegExp.prototype.test`, collect them in a `Set`, and look for a batch with
    /// `Array.isArray`, each handing every id to the page.
    @Test @GTKActor func noReplacedBuiltInSeesABytesID() async throws {
        let page = try await TestPage.ready(modules: [Self.bytes])
        defer { page.close() }
        _ = try await page.view.evaluateJavaScript(Self.traps + "; true")
        #expect(try await page.evaluate("window.__traps.replaced > 300", as: Bool.self))
        // Getters on Object.prototype for the fields a message from native may lack: a runtime that read one on a
        // message would hand the getter the message, ids of bytes included.
        _ = try await page.view.evaluateJavaScript(
            """
            for (const name of ['p', 'b', 'u', 'r', 'd', 'e', 'ok', 'end', 'state', 'modules']) {
              Object.defineProperty(Object.prototype, name, {
                configurable: true, get() { window.__traps.record(this); return undefined; },
              });
            }
            true
            """)
        _ = try await page.view.evaluateJavaScript(
            """
            window.__bytes = null;
            (async () => {
              const one = await hybrid.call('bytes', 'reverse', new Uint8Array([1, 2, 3]));
              const many = await hybrid.call('bytes', 'parts', [new Uint8Array([4, 5]).buffer, new Blob([new Uint8Array([6, 7])])]);
              return [Array.from(new Uint8Array(one)), ...many.map((b) => Array.from(new Uint8Array(b)))];
            })().then((v) => { window.__bytes = JSON.stringify(v); }, (e) => { window.__bytes = 'failed: ' + (e && e.code) + ' ' + (e && e.message); });
            true
            """)
        try await page.waitFor("window.__bytes !== null")
        #expect(try await page.evaluate("window.__bytes", as: String.self) == "[[3,2,1],[5,4],[7,6]]")
        #expect(try await page.evaluate("window.__traps.fired > 0", as: Bool.self), "the traps ran")
        #expect(
            try await page.evaluate("window.__traps.sawKeyShapedString()", as: Bool.self) == false,
            "a replaced built-in saw the id of bytes")
        #expect(
            try await page.evaluate(
                "(RegExp.prototype.test.call(/x/, '0123456789abcdef0123456789abcdef'), window.__traps.sawKeyShapedString())",
                as: Bool.self), "the search is blind")
        #expect(page.page.bridge.redemptions.heldBytes == 0)
    }
}
#endif
