#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridKit
import HybridTestServers
import Synchronization
import Testing

/// A package route's network fallback sent to a development server (a loopback one here) while cookies and
/// redirects stay under the route's origin.
@Suite struct DevelopmentOriginTests {
    @Test func requestsGoToTheServerAndCookiesAndRedirectsKeepTheRoutesOrigin() async throws {
        let server = try await LoopbackServer.start(serving: FileManager.default.temporaryDirectory) { router in
            router.get("/app/api") { request, _ in
                var headers = HTTPFields()
                headers[.setCookie] = "fromDev=1; Path=/; HttpOnly"
                let text = "host \(request.head.authority ?? "") cookie \(request.headers[.cookie] ?? "")"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
            }
            // An absolute redirect naming the server itself, as a development server that knows only its own
            // address would send.
            router.get("/app/go") { request, _ in
                Response(status: .found, headers: [.location: "http://\(request.head.authority ?? "")/app/api"])
            }
        }
        defer { server.stop() }
        let route = try #require(URL(string: "https://shop.example/app/"))
        let jar = CookieJar()
        jar.setCookie("sid=s1; Path=/; Secure", for: .http(route))
        let serverURL = try #require(URL(string: server.origin))
        let development = try DevelopmentOrigin(sending: route, to: serverURL)
        let fetcher = URLSessionNetworkFetcher(
            timeout: 20, cookies: JarCookieHandler(jar: jar), sendingTo: development)
        defer { fetcher.shutDown() }

        let start = EngineRequest(url: try #require(URL(string: "https://shop.example/app/go")))
        let collected = Mutex<(SchemeResponse?, Data)>((nil, Data()))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            _ = fetcher.fetch(start) { event in
                switch event {
                case .response(let response): collected.withLock { $0.0 = response }
                case .data(let data): collected.withLock { $0.1.append(data) }
                case .finished: continuation.resume()
                case .failed(let message): continuation.resume(throwing: NativeFetchError(message: message))
                }
            }
        }
        let (response, body) = collected.withLock { $0 }
        let text = String(decoding: body, as: UTF8.self)
        #expect(response?.statusCode == 200)
        // The server got the request, with the route's cookies (Secure ones too: the page's origin is https).
        #expect(text.contains("host 127.0.0.1:\(server.port)"), "\(text)")
        #expect(text.contains("sid=s1"), "\(text)")
        // The redirect came back under the route's origin, and so did the cookie the server set.
        #expect(response?.redirection?.url.absoluteString == "https://shop.example/app/api")
        #expect(jar.cookies(for: .http(route)).contains { $0.name == "fromDev" })
        #expect(!jar.allCookies().contains { $0.domain.contains("127.0.0.1") })
    }

    @Test func onlyTheNamedOriginMoves() throws {
        let shop = try #require(URL(string: "https://shop.example"))
        let local = try #require(URL(string: "http://127.0.0.1:8080"))
        let development = try DevelopmentOrigin(sending: shop, to: local)
        let page = try #require(URL(string: "https://shop.example/app/x?q=1#f"))
        #expect(development.outbound(page).absoluteString == "http://127.0.0.1:8080/app/x?q=1#f")
        #expect(development.inbound(development.outbound(page)) == page)
        let other = try #require(URL(string: "https://cdn.example/app/x"))
        #expect(development.outbound(other) == other)
        #expect(development.inbound(location: "/relative") == "/relative")
        #expect(development.inbound(location: "http://127.0.0.1:8080/a") == "https://shop.example/a")
        let custom = try #require(URL(string: "hybrid://x"))
        #expect(throws: DevelopmentOriginError.notAnHTTPOrigin(custom, role: .server)) {
            try DevelopmentOrigin(sending: page, to: custom)
        }
        // The mistake a new user makes: naming the scheme the page is served under instead of its site.
        #expect(throws: DevelopmentOriginError.notAnHTTPOrigin(custom, role: .page)) {
            try DevelopmentOrigin(sending: custom, to: local)
        }
    }
}
#endif
