import Foundation
import HybridKit
import HybridNetwork
import Synchronization
import Testing

/// The package handler's streaming network fallback against a real loopback server: a body still arriving goes out
/// with a known length and arrives exact, redirects follow the browser rules (307/308 send the body again, 303 turns
/// into a GET, without following the 3xx is the answer), cookies go through the handler, and a body that stops
/// fails the fetch.
@Suite struct HTTPClientNetworkFetcherTests {
    typealias TrickleSource = ProxyStreamedBodyTests.TrickleSource
    static let payload = ProxyStreamedBodyTests.payload

    /// Everything one fetch reported, once it ended.
    struct Outcome {
        var events: [NetworkFetchEvent] = []
        var response: SchemeResponse? {
            events.lazy.compactMap { event -> SchemeResponse? in
                if case .response(let head) = event { return head }
                return nil
            }.first
        }
        var body: Data {
            events.reduce(into: Data()) { data, event in
                if case .data(let bytes) = event { data.append(bytes) }
            }
        }
        var failure: String? {
            events.lazy.compactMap { event -> String? in
                if case .failed(let why) = event { return why }
                return nil
            }.first
        }
        var finished: Bool { events.last == .finished }
        var echo: Echo? { try? JSONDecoder().decode(Echo.self, from: body) }
    }

    static func run(
        _ fetcher: some NetworkFetching, _ request: EngineRequest, followRedirects: Bool = true
    ) async -> Outcome {
        let collected = Mutex(Outcome())
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            _ = fetcher.fetch(request, followRedirects: followRedirects) { event in
                collected.withLock { $0.events.append(event) }
                switch event {
                case .finished, .failed: done.resume()
                case .response, .data: break
                }
            }
        }
        return collected.withLock { $0 }
    }

    static func post(_ url: URL, source: any RequestBodySource) -> EngineRequest {
        var request = EngineRequest(url: url, method: "POST", headers: [("Content-Type", "application/octet-stream")])
        request.bodySource = source
        return request
    }

    @Test func aBodyStillArrivingIsSentWithItsLengthAndArrivesExact() async throws {
        let server = try await ProxyTestServer.start()
        let source = TrickleSource(Self.payload)
        source.release(upTo: 100_000)
        let releasing = Task {
            for end in stride(from: 200_000, through: Self.payload.count, by: 100_000) {
                try await Task.sleep(for: .milliseconds(10))
                source.release(upTo: end)
            }
        }
        let outcome = await Self.run(HTTPClientNetworkFetcher(), Self.post(server.url("/echo"), source: source))
        _ = await releasing.result
        #expect(outcome.finished, "\(outcome.events.count) events, failure: \(outcome.failure ?? "-")")
        let echo = try #require(outcome.echo)
        #expect(echo.bodyData == Self.payload)
        #expect(echo.values("content-length") == ["\(Self.payload.count)"], "the length is known up front")
        #expect(echo.values("transfer-encoding").isEmpty)
        #expect(echo.values("content-type") == ["application/octet-stream"])
        #expect(outcome.response?.statusCode == 200)
        #expect(outcome.response?.redirection == nil)
    }

    @Test func aBodyInHandIsSentExactToo() async throws {
        let server = try await ProxyTestServer.start()
        let request = EngineRequest(url: server.url("/echo"), method: "PUT", body: Self.payload)
        let outcome = await Self.run(HTTPClientNetworkFetcher(), request)
        let echo = try #require(outcome.echo, "\(outcome.failure ?? "-")")
        #expect(echo.method == "PUT")
        #expect(echo.bodyData == Self.payload)
        #expect(echo.values("content-type").isEmpty, "an untyped body stays untyped")
    }

    @Test(arguments: [307, 308]) func aRedirectSendsTheBodyAgain(_ status: Int) async throws {
        let server = try await ProxyTestServer.start()
        let source = TrickleSource(Self.payload)
        source.release(upTo: Self.payload.count)
        let outcome = await Self.run(
            HTTPClientNetworkFetcher(), Self.post(server.url("/redirect/\(status)?to=/echo"), source: source))
        #expect(outcome.finished, "\(outcome.failure ?? "-")")
        let seen = server.requests
        try #require(seen.count == 2)
        #expect(seen[0].body == Self.payload)
        #expect(seen[1].body == Self.payload, "\(status) sends the same bytes again")
        #expect(seen[1].method == "POST")
        #expect(outcome.response?.redirection == SchemeResponse.Redirection(url: server.url("/echo"), bodyResends: 1))
    }

    @Test func a303TurnsThePostIntoAGetWithoutBody() async throws {
        let server = try await ProxyTestServer.start()
        let source = TrickleSource(Self.payload)
        source.release(upTo: Self.payload.count)
        let outcome = await Self.run(
            HTTPClientNetworkFetcher(), Self.post(server.url("/redirect/303?to=/echo"), source: source))
        let echo = try #require(outcome.echo, "\(outcome.failure ?? "-")")
        #expect(echo.method == "GET")
        #expect(echo.bodyData.isEmpty)
        #expect(echo.values("content-type").isEmpty, "the body's headers go with it")
        #expect(outcome.response?.redirection == SchemeResponse.Redirection(url: server.url("/echo"), bodyResends: 0))
    }

    @Test func withoutFollowingTheRedirectIsTheAnswer() async throws {
        let server = try await ProxyTestServer.start()
        let outcome = await Self.run(
            HTTPClientNetworkFetcher(), EngineRequest(url: server.url("/redirect/302?to=/echo")), followRedirects: false
        )
        #expect(outcome.finished)
        #expect(outcome.response?.statusCode == 302)
        #expect(outcome.response?.headers.first { $0.key.lowercased() == "location" }?.value == "/echo")
        #expect(outcome.response?.redirection == nil)
        #expect(server.requests.count == 1)
    }

    @Test func tooManyRedirectsFail() async throws {
        let server = try await ProxyTestServer.start()
        let outcome = await Self.run(HTTPClientNetworkFetcher(), EngineRequest(url: server.url("/loop/25")))
        #expect(outcome.failure?.contains("more than \(RedirectRule.limit) redirects") == true, "\(outcome.events)")
    }

    @Test func cookiesGoThroughTheHandlerAndNeverToTheEngine() async throws {
        let server = try await ProxyTestServer.start()
        let jar = RecordingCookies(header: "session=abc")
        var request = EngineRequest(url: server.url("/cookies"), headers: [("Cookie", "page=forged")])
        request.method = "GET"
        let outcome = await Self.run(HTTPClientNetworkFetcher(cookies: jar), request)
        #expect(outcome.finished)
        #expect(server.requests.first?.values("cookie") == ["session=abc"], "the handler's header replaces the page's")
        #expect(jar.stored == ["a=1; Path=/", "b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/"])
        #expect(outcome.response?.headers.keys.contains { $0.lowercased() == "set-cookie" } == false)
    }

    @Test func aGzipBodyArrivesDecodedWithoutItsEncodingHeaders() async throws {
        let server = try await ProxyTestServer.start()
        let outcome = await Self.run(HTTPClientNetworkFetcher(), EngineRequest(url: server.url("/gzip/100000")))
        #expect(outcome.body == Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 % 253) }))
        let names = outcome.response?.headers.keys.map { $0.lowercased() } ?? []
        #expect(!names.contains("content-encoding") && !names.contains("content-length"))
        #expect(outcome.response?.expectedLength == nil)
    }

    @Test func aBodyThatStopsFailsTheFetch() async throws {
        let server = try await ProxyTestServer.start()
        let source = TrickleSource(Self.payload)
        source.release(upTo: 50_000)
        let breaking = Task {
            try await Task.sleep(for: .milliseconds(50))
            source.breakOff()
        }
        let outcome = await Self.run(HTTPClientNetworkFetcher(), Self.post(server.url("/echo"), source: source))
        _ = await breaking.result
        #expect(outcome.failure?.contains("did not arrive in full") == true, "\(outcome.events)")
        #expect(outcome.response == nil)
    }
}

/// A cookie handler that answers one header and records what it was handed.
private final class RecordingCookies: HTTPCookieHandling {
    let header: String
    private let received = Mutex<[String]>([])
    var stored: [String] { received.withLock { $0 } }

    init(header: String) { self.header = header }

    func cookieHeader(for url: URL, firstParty: URL?, method: String, includeHTTPOnly: Bool) -> String? { header }
    func storeSetCookies(_ values: [String], from url: URL, firstParty: URL?) {
        received.withLock { $0.append(contentsOf: values) }
    }
}
