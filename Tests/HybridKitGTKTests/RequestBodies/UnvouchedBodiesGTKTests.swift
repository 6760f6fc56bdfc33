#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestServers
import Testing

/// Bodies sent to the custom scheme around the hooks, in real WebKitGTK. Reading a Blob-backed body there crashes
/// WebKitGTK 2.50's UI process (the test process here), so native reads only bodies that carry the page's body
/// key: these requests used to crash the host and must now fail cleanly, while the page keeps working.
@Suite(.serialized) struct UnvouchedBodiesGTKTests {
    @Test @GTKActor func aWorkersBlobPostIsRefusedWithoutCrashingTheHost() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(.bodyByID))
        // User scripts do not run in workers, so its fetch is the engine's own, unhooked.
        let answer = try await lab.run(
            """
            new Promise((resolve) => {
              const code = `fetch(${JSON.stringify(location.origin + '/echo')}, { method: 'POST',
                body: new Blob(['worker'.repeat(1000)]) }).then((r) => postMessage('status ' + r.status),
                (e) => postMessage('error ' + e.message));`;
              const worker = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
              worker.onmessage = (event) => resolve(event.data);
              worker.onerror = (event) => resolve('worker failed: ' + event.message);
            })
            """)
        #expect(answer.hasPrefix("\"error"), "the worker's Blob POST failed as a network error: \(answer)")
        // The host is alive and the page's own Blob POSTs still arrive byte for byte.
        let echoed = try await lab.run(
            "fetch('/echo', { method: 'POST', body: new Blob(['page blob']) }).then((r) => r.json())"
                + ".then((e) => e.length)")
        #expect(echoed == "9")
    }

    @Test @GTKActor func aBlobDisguisedAsABufferIsRefusedAndTextStillArrivesWithTheHooksOff() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(.bodyByID))
        // A Blob whose toStringTag says ArrayBuffer: the hooks read kinds by brand checks, so it is a Blob to them
        // and goes up by id, byte for byte; never keyed, never read by native from the engine.
        let disguised = try await lab.run(
            """
            (() => { const blob = new Blob(['disguised']);
              Object.defineProperty(blob, Symbol.toStringTag, { value: 'ArrayBuffer' });
              return fetch('/echo', { method: 'POST', body: blob }).then((r) => r.json()).then(
                (e) => 'length ' + e.length, (e) => 'error ' + e.message); })()
            """)
        #expect(disguised == #""length 9""#, "\(disguised)")

        // With the hooks switched off, engine-safe bodies still carry the key and arrive.
        lab.interception.setHooksEnabled(false)
        try await lab.waitFor("__hybridRequests.enabled === false", timeout: .seconds(5))
        let text = try await lab.run(
            "fetch('/echo', { method: 'POST', body: 'plain text' }).then((r) => r.json()).then((e) => e.length)")
        #expect(text == "10")
        let xhr = try await lab.run(
            """
            new Promise((resolve) => { const x = new XMLHttpRequest(); x.open('POST', '/echo');
              x.onload = () => resolve(JSON.parse(x.responseText).length); x.send(new Uint8Array([1, 2, 3])); })
            """)
        #expect(xhr == "3")
    }

    /// A POST with no body carries the key (there is nothing to read), and a `Request` whose Blob body survives a
    /// null `init.body` (Fetch keeps the Request's own body then) goes through the store, not to the engine unkeyed.
    @Test @GTKActor func bodylessPostsAndARequestsOwnBodyArrive() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(.bodyByID))
        let bodyless = try await lab.run(
            """
            Promise.all([
              fetch('/echo', { method: 'POST' }).then((r) => r.json()).then((e) => e.method + ' ' + e.length),
              new Promise((resolve) => { const x = new XMLHttpRequest(); x.open('DELETE', '/echo');
                x.onload = () => resolve(x.status); x.onerror = () => resolve('error'); x.send(null); }),
            ]).then((all) => all.join(' | '))
            """)
        #expect(bodyless == #""POST 0 | 200""#, "\(bodyless)")
        let kept = try await lab.run(
            """
            fetch(new Request('/echo', { method: 'POST', body: new Blob(['request body']) }), { body: null })
              .then((r) => r.json()).then((e) => e.length, (e) => 'error ' + e.message)
            """)
        #expect(kept == "12", "\(kept)")
    }

    @Test @GTKActor func aPlainFormPostKeepsItsBodyAndType() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(.bodyByID))
        // No files: the engine would carry it, but native cannot tell its body from a Blob's, so it goes by id.
        _ = try await lab.view.evaluateJavaScript(
            """
            (() => {
              const form = document.createElement('form');
              form.method = 'post'; form.action = '/echo';
              for (const [name, value] of [['who', 'zoë'], ['n', '1 2']]) {
                const input = document.createElement('input'); input.name = name; input.value = value;
                form.appendChild(input);
              }
              document.body.appendChild(form);
              form.submit();
              return true;
            })()
            """)
        try await lab.waitFor(
            "document.body && document.body.innerText.includes('\"method\":\"POST\"')", timeout: .seconds(20))
        let text = try await lab.run("document.body.innerText")
        // who=zo%C3%AB&n=1+2: 18 bytes, as the engine encodes it.
        #expect(text.contains("x-www-form-urlencoded"), "\(text)")
        #expect(text.contains("\\\"length\\\":18"), "\(text)")
    }
}
#endif
