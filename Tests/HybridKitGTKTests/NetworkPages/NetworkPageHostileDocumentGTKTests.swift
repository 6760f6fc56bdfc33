#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestSupport
import Testing

/// A network page's server that lies about its document, byte for byte (`RawHTTPServer`): whatever the native
/// fetch makes of it, the host and the page see what the engine's own load of the same answer shows, in bounded
/// time. Each case opens the page in a cold view twice, with the native fetch and without it, and compares.
@Suite(.serialized, .engineCookieStoreExclusive) struct NetworkPageHostileDocumentGTKTests {
    static let answers: [String: Data] = [
        // Announces 5,000 bytes, sends 40, closes: a truncated document.
        "short": Data(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5000\r\n\r\n<title>short</title><p>cut".utf8),
        // Announces 20 bytes, sends more: only the announced ones are the document.
        "long": Data(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 20\r\n\r\n<title>long</title><p>past the length</p>"
                .utf8),
        // Two lengths that disagree: a framing a client must refuse.
        "two-lengths": Data(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 12\r\nContent-Length: 30\r\n\r\n<title>two</title>"
                .utf8),
        // Says text/html and is binary: NUL, bytes that are no UTF-8, a lone continuation byte.
        "binary": Data("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 64\r\n\r\n".utf8)
            + Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0x80) }),
        // No length, no chunking: the document ends when the connection does.
        "until-close": Data("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<title>eof</title><p>to the end".utf8),
    ]

    struct Seen: Equatable {
        var failure: String?
        var html: String?
    }

    @Test(arguments: ["short", "long", "two-lengths", "binary", "until-close"])
    @GTKActor func aLyingDocumentShowsWhatTheEnginesOwnLoadShows(_ name: String) async throws {
        let fixture = try await NetworkPageFixture()
        defer { fixture.close() }
        let answer = try #require(Self.answers[name])
        let server = try RawHTTPServer(response: answer)
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let page = try #require(URL(string: origin + "/page"))
        let prefetcher = try NetworkPagePrefetcher(
            origins: [origin], policy: NetworkPagePolicy(allowsPrivateAddresses: true), jar: fixture.jar)
        let plain = try await Self.open(page, prefetcher: nil, fixture: fixture)
        let served = server.requests
        let started = ContinuousClock.now
        let native = try await Self.open(page, prefetcher: prefetcher, fixture: fixture)
        #expect(ContinuousClock.now - started < .seconds(8), "\(name): not bounded")
        #expect(server.requests > served, "\(name): the server saw no request")
        #expect(native == plain, "\(name): with the native fetch \(native), the engine's own load \(plain)")
    }

    @GTKActor static func open(_ url: URL, prefetcher: NetworkPagePrefetcher?, fixture: NetworkPageFixture)
        async throws -> Seen
    {
        let container = try HybridContainer(
            configuration: fixture.configuration(prefetcher), factory: GTKEngineFactory())
        defer { container.close() }
        var failure: String?
        do {
            try await container.loadAndWait(url, timeout: .seconds(10))
        } catch let error as PageLoadFailure {
            failure = error.kind.rawValue
            // WebKitGTK shows its error page after the failure is reported, by a load of its own: wait for it
            // (at most 3 s) so both sides are compared once it is in.
            let deadline = ContinuousClock.now + .seconds(3)
            while ContinuousClock.now < deadline,
                try await container.engine.evaluateJavaScript("document.body ? document.body.textContent : ''")
                    == "\"\""
            {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let html = try await container.engine.evaluateJavaScript(
            "document.documentElement ? document.documentElement.outerHTML : ''")
        return Seen(failure: failure, html: html)
    }
}
#endif
