#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestServers
import Testing

/// Full proxy streams a stored body while the page is still uploading it (chunks several at a time, in any order):
/// the bytes arrive exact, and a body that never completes fails the request with a clear error and frees the store.
@Suite(.serialized) struct RequestBodyStreamingTests {
    /// Starts a body of 100 bytes with only its first 10 uploaded, then a proxy request that streams it; returns
    /// the body's id. `window.__proxied` settles with what the page got.
    static let halfUploadedProxyRequest = """
        (async () => {
          const begin = await fetch('/__hybrid__/body?size=100', { method: 'POST', body: new Uint8Array(10) });
          const id = (await begin.json()).id;
          const descriptor = {
            url: location.origin + '/echo', method: 'POST', headers: [], bodyID: id, firstParty: location.href,
          };
          window.__stop = new AbortController();
          window.__proxied = fetch('/__hybrid__/proxy', {
            method: 'POST', signal: window.__stop.signal,
            headers: { 'X-Hybrid-Proxy': encodeURIComponent(JSON.stringify(descriptor)) },
          }).then(async (r) => r.status + ' ' + (r.headers.get('X-Hybrid-Proxy-Error') || '-') + ' ' + await r.text(),
                  (e) => 'rejected ' + e.name);
          return id;
        })()
        """

    @Test @GTKActor func aManyChunkBlobReachesTheServerExactThroughTheProxy() async throws {
        let lab = try await BodiesLab(proxy: RequestBodiesTests.makeProxy())
        defer { lab.close() }
        try await lab.load(lab.pageURL(.fullProxy))
        // 3 MB + 5 bytes: 13 chunks of the lab's 256 KB, the last one short.
        let result = try await lab.run(
            """
            (async () => {
              const bytes = new Uint8Array(3 * 1024 * 1024 + 5).map((_, i) => (i * 31 + (i >> 11)) & 255);
              const expected = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)),
                (b) => b.toString(16).padStart(2, '0')).join('');
              const echo = await (await fetch('/echo', { method: 'POST', body: new Blob([bytes]) })).json();
              return { length: echo.length, same: echo.sha256 === expected, method: echo.method };
            })()
            """)
        #expect(result == #"{"length":3145733,"same":true,"method":"POST"}"#, "\(result)")
        try await waitUntil(timeout: .seconds(5)) { lab.interception.handler.store.count == 0 }
        #expect(lab.interception.handler.store.reservedBytes == 0)
    }

    @Test @GTKActor func aBodyThatNeverCompletesFailsTheProxyRequestAndFreesTheStore() async throws {
        let lab = try await BodiesLab(proxy: RequestBodiesTests.makeProxy())
        defer { lab.close() }
        try await lab.load(lab.pageURL(.fullProxy))
        let id = try await lab.run(Self.halfUploadedProxyRequest)
        // The proxy request is out, streaming the 10 bytes it has and waiting for the rest.
        try await waitUntil(timeout: .seconds(10)) { lab.interception.handler.proxiedCount == 1 }
        #expect(lab.interception.handler.store.count == 1)
        _ = try await lab.run("fetch('/__hybrid__/body/' + \(id), { method: 'DELETE' }).then((r) => r.status)")
        let answer = try await lab.run("window.__proxied")
        #expect(answer.hasPrefix("\"502 1 "), "\(answer)")
        #expect(answer.contains("did not arrive in full") && answer.contains("10 of 100"), "\(answer)")
        #expect(lab.interception.handler.proxiedCount == 0)
        #expect(lab.interception.handler.store.count == 0 && lab.interception.handler.store.reservedBytes == 0)
    }

    /// What the hook does when the page aborts mid-upload: it cuts the proxy request and discards the body. (The
    /// engine tells a scheme handler nothing when a page aborts a request it has not answered yet, so the discard
    /// is what reaches native.) The proxy request must end and the store must let go of the body.
    @Test @GTKActor func anAbortMidUploadEndsTheProxyRequestAndFreesTheStore() async throws {
        let lab = try await BodiesLab(proxy: RequestBodiesTests.makeProxy())
        defer { lab.close() }
        try await lab.load(lab.pageURL(.fullProxy))
        let id = try await lab.run(Self.halfUploadedProxyRequest)
        try await waitUntil(timeout: .seconds(10)) { lab.interception.handler.proxiedCount == 1 }
        _ = try await lab.run(
            "(window.__stop.abort(), fetch('/__hybrid__/body/' + \(id), { method: 'DELETE' }).then((r) => r.status))")
        #expect(try await lab.run("window.__proxied") == "\"rejected AbortError\"")
        try await waitUntil(timeout: .seconds(10)) {
            lab.interception.handler.proxiedCount == 0 && lab.interception.handler.store.count == 0
        }
        #expect(lab.interception.handler.store.reservedBytes == 0)
        // The rest of the upload is refused: nothing waits for it any more.
        let late = try await lab.run(
            "fetch('/__hybrid__/body/' + \(id) + '?offset=10', { method: 'POST', body: new Uint8Array(90) }).then((r) => r.status)"
        )
        #expect(late == "404")
    }
}
#endif
