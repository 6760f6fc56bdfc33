#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridKit
import HybridTestServers
import Synchronization
import Testing

/// The package handler's network fallback follows redirects by the browser rules itself (URLSession on Linux
/// re-sends no body after a 307) and reports where they led. Against a real loopback server: 127.0.0.1 and
/// localhost are two origins of it.
@Suite struct NetworkFallbackRedirectTests {
    /// What `/seen` tells about the request that reached it.
    struct Seen: Decodable {
        let method: String
        let contentType: String?
        let authorization: String?
        let body: String
    }

    struct Outcome {
        let response: SchemeResponse
        let seen: Seen?
    }

    static func start() async throws -> LoopbackServer {
        try await LoopbackServer.start(serving: FileManager.default.temporaryDirectory) { router in
            for method in [HTTPRequest.Method.get, .post, .put] {
                router.on("/seen", method: method) { request, _ in
                    var bytes = Data()
                    for try await buffer in request.body { bytes.append(contentsOf: buffer.readableBytesView) }
                    let report: [String: String?] = [
                        "method": request.method.rawValue, "contentType": request.headers[.contentType],
                        "authorization": request.headers[.authorization],
                        "body": String(decoding: bytes, as: UTF8.self),
                    ]
                    let data = try JSONEncoder().encode(report)
                    return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: data)))
                }
                router.on("/loop", method: method) { _, _ in
                    Response(status: .temporaryRedirect, headers: [.location: "/loop"])
                }
                router.on("/hop/:code", method: method) { request, context in
                    let code = context.parameters.get("code", as: Int.self) ?? 302
                    let target = request.uri.queryParameters.get("to") ?? "/seen"
                    return Response(status: HTTPResponse.Status(code: code), headers: [.location: target])
                }
            }
        }
    }

    static func fetch(_ request: EngineRequest, followRedirects: Bool = true) async throws -> Outcome {
        let fetcher = URLSessionNetworkFetcher(timeout: 20)
        let collected = Mutex<(SchemeResponse?, Data)>((nil, Data()))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            _ = fetcher.fetch(request, followRedirects: followRedirects) { event in
                switch event {
                case .response(let response): collected.withLock { $0.0 = response }
                case .data(let data): collected.withLock { $0.1.append(data) }
                case .finished: continuation.resume()
                case .failed(let message): continuation.resume(throwing: NativeFetchError(message: message))
                }
            }
        }
        let (response, body) = collected.withLock { $0 }
        guard let response else { throw NativeFetchError(message: "no response") }
        return Outcome(response: response, seen: try? JSONDecoder().decode(Seen.self, from: body))
    }

    static func post(_ url: String, type: String? = "text/plain", headers: [(String, String)] = []) throws
        -> EngineRequest
    {
        var all = headers
        if let type { all.append(("Content-Type", type)) }
        return EngineRequest(
            url: try #require(URL(string: url)), method: "POST", headers: all, body: Data("the body".utf8))
    }

    @Test(arguments: [307, 308]) func temporaryAndPermanentRedirectsResendMethodAndBody(code: Int) async throws {
        let server = try await Self.start()
        defer { server.stop() }
        let outcome = try await Self.fetch(Self.post(server.origin + "/hop/\(code)"))
        #expect(outcome.seen?.method == "POST")
        #expect(outcome.seen?.body == "the body", "the body is re-sent after \(code)")
        #expect(outcome.seen?.contentType == "text/plain")
        #expect(outcome.response.redirection?.url.absoluteString == server.origin + "/seen")
        #expect(outcome.response.redirection?.bodyResends == 1)
    }

    @Test(arguments: [301, 302, 303]) func seeOtherAndPostRedirectsBecomeGETWithoutBody(code: Int) async throws {
        let server = try await Self.start()
        defer { server.stop() }
        let outcome = try await Self.fetch(Self.post(server.origin + "/hop/\(code)"))
        #expect(outcome.seen?.method == "GET")
        #expect(outcome.seen?.body == "")
        #expect(outcome.seen?.contentType == nil, "the body's headers go with the body")
        #expect(outcome.response.redirection?.bodyResends == 0)
        #expect(outcome.response.redirection != nil)
    }

    @Test func aPutAnswered303BecomesAGETButA302KeepsIt() async throws {
        let server = try await Self.start()
        defer { server.stop() }
        var put = try Self.post(server.origin + "/hop/302")
        put.method = "PUT"
        #expect(try await Self.fetch(put).seen?.method == "PUT", "301/302 change POST only")
        put.url = try #require(URL(string: server.origin + "/hop/303"))
        #expect(try await Self.fetch(put).seen?.method == "GET")
    }

    @Test func authorizationIsDroppedWhenARedirectLeavesTheOrigin() async throws {
        let server = try await Self.start()
        defer { server.stop() }
        let auth = [("Authorization", "Bearer secret")]
        let same = try await Self.fetch(Self.post(server.origin + "/hop/307", headers: auth))
        #expect(same.seen?.authorization == "Bearer secret")
        let other = "http://localhost:\(server.port)/seen"
        let cross = try await Self.fetch(Self.post(server.origin + "/hop/307?to=\(other)", headers: auth))
        #expect(cross.seen?.authorization == nil)
        #expect(cross.seen?.body == "the body")
        #expect(cross.response.redirection?.url.absoluteString == other)
    }

    @Test func aBodyWithoutTypeReachesTheServerWithoutOne() async throws {
        let server = try await Self.start()
        defer { server.stop() }
        let direct = try await Self.fetch(Self.post(server.origin + "/seen", type: nil))
        #expect(direct.seen?.contentType == nil, "URLSession's default type must not be added")
        #expect(direct.seen?.body == "the body")
        #expect(direct.response.redirection == nil, "no redirect, nothing to report")
        let redirected = try await Self.fetch(Self.post(server.origin + "/hop/307", type: nil))
        #expect(redirected.seen?.contentType == nil)
        #expect(redirected.seen?.body == "the body")
    }

    @Test func withoutFollowingTheRedirectItselfIsTheResponse() async throws {
        let server = try await Self.start()
        defer { server.stop() }
        let outcome = try await Self.fetch(Self.post(server.origin + "/hop/307"), followRedirects: false)
        #expect(outcome.response.statusCode == 307)
        #expect(outcome.response.headers.first { $0.key.lowercased() == "location" }?.value == "/seen")
        #expect(outcome.response.redirection == nil)
    }

    @Test func aRedirectLoopFailsAfterTheBrowsersLimit() async throws {
        let server = try await Self.start()
        defer { server.stop() }
        let error = await #expect(throws: NativeFetchError.self) {
            try await Self.fetch(Self.post(server.origin + "/loop"))
        }
        #expect(
            error?.message.contains("more than \(RedirectRule.limit) redirects") == true, "\(String(describing: error))"
        )
    }
}
#endif
