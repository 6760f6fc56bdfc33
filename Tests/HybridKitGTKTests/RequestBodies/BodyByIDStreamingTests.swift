#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestServers
import Testing

/// Body by id streams its second leg: the hook sends the tagged request as soon as the first chunk named the id, the
/// handler claims the body and the package handler's network fetch sends it as the rest lands. The page's Blob is
/// held back after its first chunk (a `slice` the test releases), so each test sees the request out while the upload
/// is incomplete, without timing anything.
@Suite(.serialized) struct BodyByIDStreamingTests {
    /// `window.__gate` releases every chunk after the first; `window.__post(url, size, signal)` POSTs a Blob of
    /// `size` patterned bytes with fetch and settles with the echo and whether its SHA-256 matches the bytes sent.
    static let held = """
        (() => {
          let open;
          window.__gate = new Promise((resolve) => { open = resolve; });
          window.__open = open;
          class HeldBlob extends Blob {
            slice(start, end, type) {
              const part = super.slice(start, end, type);
              if (start > 0) part.arrayBuffer = () => window.__gate.then(() => Blob.prototype.arrayBuffer.call(part));
              return part;
            }
          }
          window.__post = async (url, size, signal) => {
            const bytes = new Uint8Array(size).map((_, i) => (i * 31 + (i >> 11)) & 255);
            const expected = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)),
              (b) => b.toString(16).padStart(2, '0')).join('');
            try {
              const response = await fetch(url, { method: 'POST', body: new HeldBlob([bytes]), signal });
              const echo = await response.json();
              return { status: response.status, length: echo.length, same: echo.sha256 === expected,
                       method: echo.method, url: response.url };
            } catch (e) {
              return { rejected: e.name };
            }
          };
          return true;
        })()
        """

    static let size = 5 * 1024 * 1024 + 7

    @Test @GTKActor func aSeveralMegabytePostIsSentWhileUploadingAndArrivesExact() async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(.bodyByID))
        _ = try await lab.run(Self.held)
        let handler = lab.interception.handler
        _ = try await lab.run("(window.__result = window.__post('/echo', \(Self.size)), true)")
        // The tagged request reached the handler with only the first chunk stored.
        try await waitUntil(timeout: .seconds(10)) { handler.attachedCount == 1 && handler.store.count == 1 }
        #expect(handler.store.reservedBytes == Self.size)
        _ = try await lab.run("(window.__open(), true)")
        let result = try await lab.run("window.__result")
        #expect(result.contains(#""length":\#(Self.size),"same":true,"method":"POST""#), "\(result)")
        try await waitUntil(timeout: .seconds(10)) { handler.store.count == 0 && handler.attachedCount == 0 }
        #expect(handler.store.reservedBytes == 0)
    }

    @Test(arguments: [307, 308]) @GTKActor func aRedirectSendsTheStreamedBodyAgain(_ status: Int) async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(.bodyByID))
        _ = try await lab.run(Self.held)
        let handler = lab.interception.handler
        _ = try await lab.run("(window.__result = window.__post('/redirect/\(status)', \(Self.size)), true)")
        try await waitUntil(timeout: .seconds(10)) { handler.attachedCount == 1 }
        _ = try await lab.run("(window.__open(), true)")
        let result = try await lab.run("window.__result")
        #expect(result.contains(#""length":\#(Self.size),"same":true,"method":"POST""#), "\(result)")
        #expect(result.contains("/echo?redirected=\(status)"), "the page sees the final URL: \(result)")
        try await waitUntil(timeout: .seconds(10)) { handler.store.count == 0 && handler.attachedCount == 0 }
    }

    /// `hostileSignal`: the page first makes every object read as having an aborted `signal` (a getter on
    /// `Object.prototype`), which an options bag the hooks pass to `addEventListener` would inherit: the hooks'
    /// abort listener would then never be added, and the upload would go on after the page's abort.
    @Test(arguments: [false, true]) @GTKActor func anAbortMidUploadFreesTheStore(hostileSignal: Bool) async throws {
        let lab = try await BodiesLab(proxy: nil)
        defer { lab.close() }
        try await lab.load(lab.pageURL(.bodyByID))
        _ = try await lab.run(Self.held)
        if hostileSignal {
            _ = try await lab.run(
                "(Object.defineProperty(Object.prototype, 'signal', { configurable: true, get() { return AbortSignal.abort(); } }), true)"
            )
        }
        let handler = lab.interception.handler
        _ = try await lab.run(
            "(window.__stop = new AbortController(), window.__result = window.__post('/echo', \(Self.size), window.__stop.signal), true)"
        )
        try await waitUntil(timeout: .seconds(10)) { handler.attachedCount == 1 && handler.store.count == 1 }
        _ = try await lab.run("(window.__stop.abort(), true)")
        let result = try await lab.run("window.__result")
        #expect(result == #"{"rejected":"AbortError"}"#)
        try await waitUntil(timeout: .seconds(10)) { handler.store.count == 0 && handler.attachedCount == 0 }
        #expect(handler.store.reservedBytes == 0)
        _ = try await lab.run("(window.__open(), true)")
    }

    /// A network fallback that cannot stream (URLSession) gets the whole body once the upload ended.
    @Test @GTKActor func urlSessionSendsTheBodyOnceItIsComplete() async throws {
        let lab = try await BodiesLab(proxy: nil, network: URLSessionNetworkFetcher())
        defer { lab.close() }
        try await lab.load(lab.pageURL(.bodyByID))
        _ = try await lab.run(Self.held)
        let handler = lab.interception.handler
        _ = try await lab.run("(window.__result = window.__post('/echo', \(Self.size)), true)")
        try await waitUntil(timeout: .seconds(10)) { handler.attachedCount == 1 && handler.store.count == 1 }
        _ = try await lab.run("(window.__open(), true)")
        let result = try await lab.run("window.__result")
        #expect(result.contains(#""length":\#(Self.size),"same":true,"method":"POST""#), "\(result)")
        try await waitUntil(timeout: .seconds(10)) { handler.store.count == 0 && handler.attachedCount == 0 }
    }
}
#endif
