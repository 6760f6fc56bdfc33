#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Testing

/// Network pages in real WebKitGTK: the main document fetched natively and shown with its real URL, origin and
/// cookies; everything the engine's own load would do differently loads the plain way, unchanged but for time.
@Suite(.serialized) struct NetworkPageGTKTests {
    @Test @GTKActor func aNetworkPageIsShownFromTheNativeFetchWithItsRealURLOriginAndCookies() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let with = try await fixture.open("/page?x=1", with: try fixture.prefetcher())
        // The native fetch got the document; the engine sent no request for it.
        #expect(fixture.natives == ["GET /page?x=1"])
        #expect(fixture.requests("GET /page") == ["GET /page?x=1"])
        // Sent with the jar's cookies and the engine's User-Agent.
        #expect(fixture.pageHeaders.lines.withLock { $0 } == ["cookie=sid=s1 ua=\(NetworkPageFixture.userAgent)"])
        let page = try fixture.url("/page?x=1").absoluteString
        #expect(with.href == page)
        #expect(with.url == page)
        #expect(with.origin == fixture.server.origin)
        // The response's cookies are in the document (HttpOnly not), sent with a same-origin fetch (HttpOnly too),
        // and in the jar; a cookie for another domain is in neither.
        #expect(
            with.cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.sorted() == [
                "doc=d1", "sid=s1",
            ])
        #expect(with.fetched.contains("hid=h1") && with.fetched.contains("doc=d1") && with.fetched.contains("sid=s1"))
        #expect(Set(fixture.jar.allCookies().map(\.name)) == ["sid", "doc", "hid"])
        // The charset came with it, and the page's script ran.
        #expect(with.text == "é")
        #expect(with.title == "page ran")

        // The same page loaded the plain way reads the same.
        let without = try await fixture.open("/page?x=1", with: nil)
        #expect(without == with)
        #expect(fixture.requests("GET /page").count == 2)
    }

    @Test @GTKActor func aSameOriginRedirectIsFollowedToTheFinalURL() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let probe = try await fixture.open("/old", with: try fixture.prefetcher())
        #expect(probe.href == (try fixture.url("/page?from=old").absoluteString))
        #expect(probe.title == "page ran")
        #expect(fixture.requests("GET ") == ["GET /old?", "GET /page?from=old"])
        #expect(fixture.natives == ["GET /old?", "GET /page?from=old"])
    }

    @Test @GTKActor func aRedirectToAnotherOriginIsLeftToTheEngine() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let probe = try await fixture.open("/away", with: try fixture.prefetcher())
        #expect(probe.origin == fixture.other.origin)
        #expect(probe.title == "other")
        // The native fetch stopped at the redirect; the engine made the whole chain itself.
        #expect(fixture.natives == ["GET /away?"])
        #expect(fixture.requests("GET ") == ["GET /away?", "GET /away?"])
        #expect(fixture.otherLog.lines.withLock { $0 } == ["GET /page?"])
    }

    /// WebKitGTK's simulated load cannot carry a Content-Security-Policy: the engine loads the page and applies it.
    @Test @GTKActor func aSecurityHeaderTheEngineCannotCarryIsNeverDropped() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let probe = try await fixture.open("/csp", with: try fixture.prefetcher())
        #expect(probe.title == "csp", "the inline script ran: the policy was lost")
        #expect(fixture.requests("GET /csp").count == 2)
    }

    /// A server's charset, however it is spelt (quoted, upper case, only in a `<meta>`, contradicted by a BOM, or none
    /// at all), is read from the natively fetched document exactly as the engine's own load reads it.
    @Test(arguments: ["cp1251", "quoted", "upper", "bom", "default", "meta"])
    @GTKActor func aDocumentsCharsetIsReadAsTheEngineReadsIt(_ name: String) async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let plain = try await fixture.open("/charset/\(name)", with: nil)
        let native = try await fixture.open("/charset/\(name)", with: try fixture.prefetcher())
        #expect(fixture.natives.count == 1, "\(fixture.natives)")
        #expect(fixture.requests("GET /charset/\(name)").count == 2, "one plain load, one native fetch")
        #expect(
            native.title == plain.title,
            "\(name): native \(native.title.debugDescription), engine \(plain.title.debugDescription)")
        #expect(!plain.title.isEmpty && !plain.title.contains("\u{FFFD}"), "\(plain.title.debugDescription)")
    }

    /// Refresh, Link, X-Frame-Options and nosniff are applied by WebKit's document loader from the response, which
    /// `load_bytes` does not take: each page is left to the engine (fetched natively, then loaded plainly).
    @Test(arguments: ["refresh", "link", "x-frame-options", "x-content-type-options"])
    @GTKActor func aDocumentHeaderTheSimulatedLoadCannotCarryIsLeftToTheEngine(_ name: String) async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        _ = try await fixture.open("/header/\(name)", with: try fixture.prefetcher())
        #expect(fixture.natives.count == 1)
        #expect(fixture.requests("GET /header/\(name)").count == 2, "\(fixture.requests("GET"))")
        if name == "refresh" {
            // The engine applied the header: it went on to the page Refresh named.
            try await Task.sleep(for: .milliseconds(500))
            #expect(fixture.requests("GET /page?from=refresh").count == 1, "\(fixture.requests("GET"))")
        }
    }

    @Test @GTKActor func aHugeDocumentIsBoundedAndLoadedByTheEngine() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let policy = NetworkPagePolicy(maximumDocumentBytes: 64 * 1024, allowsPrivateAddresses: true)
        let probe = try await fixture.open("/big", with: try fixture.prefetcher(policy: policy))
        #expect(probe.title == "big ran")
        #expect(probe.text.count > 100_000 / 13 * 6)
        #expect(fixture.requests("GET /big").count == 2)
    }

    @Test @GTKActor func aDrippingDocumentCostsAtMostTheWait() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let policy = NetworkPagePolicy(maximumWait: .milliseconds(300), allowsPrivateAddresses: true)
        let probe = try await fixture.open("/drip", with: try fixture.prefetcher(policy: policy))
        #expect(probe.title == "drip")
        #expect(probe.text == "0\n\n1\n\n2\n\n3\n\n4" || probe.text.filter(\.isNumber) == "01234", "\(probe.text)")
        #expect(fixture.requests("GET /drip").count == 2)
    }

    @Test @GTKActor func aFailedNativeFetchChangesNothingForThePage() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let probe = try await fixture.open(
            "/page?x=1", with: try fixture.prefetcher(network: { _ in FailingNetwork() }))
        #expect(probe.title == "page ran")
        #expect(probe.cookie.contains("doc=d1"))
        #expect(fixture.requests("GET /page").count == 1)
    }

    @Test @GTKActor func notAnHTMLDocumentIsLeftToTheEngine() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let container = try HybridContainer(
            configuration: fixture.configuration(try fixture.prefetcher()), factory: GTKEngineFactory())
        defer { container.close() }
        let events = container.loadEvents()
        try container.load(try fixture.url("/json"))
        for await event in events {
            if case .finished = event { break }
            if case .failed = event { break }
        }
        #expect(fixture.requests("GET /json").count == 2)
    }

    @Test @GTKActor func aTapPrefetchFeedsAPooledView() async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let pool = WebViewPool(factory: GTKEngineFactory(), configuration: PoolConfiguration(warmCount: 1, capacity: 1))
        try await pool.prewarm()
        let prefetcher = try fixture.prefetcher()
        #expect(prefetcher.prefetch(for: try fixture.url("/page?x=1")))
        #expect(!prefetcher.prefetch(for: try fixture.url("/page?x=1")), "one fetch per page at a time")
        let probe = try await fixture.open("/page?x=1", with: prefetcher, pool: pool)
        #expect(probe.origin == fixture.server.origin)
        #expect(probe.title == "page ran")
        #expect(fixture.natives == ["GET /page?x=1"])
        #expect(fixture.requests("GET /page").count == 1)
        await pool.drain()
    }
}
#endif
