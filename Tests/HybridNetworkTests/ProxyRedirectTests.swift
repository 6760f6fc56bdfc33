import Foundation
import HybridKit
import HybridNetwork
import Testing

/// Redirects followed by the proxy itself against a real loopback server, with the browser's method and body rules.
@Suite struct ProxyRedirectTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let status: Int
        let method: String
        let expectedMethod: String
        var methodChanges: Bool { expectedMethod != method }
        /// GET and HEAD never carry a body, whatever the page passed.
        var sendsBody: Bool { method != "GET" && method != "HEAD" }
        var testDescription: String { "\(status) \(method) → \(expectedMethod)" }
    }

    static let cases: [Case] = [
        Case(status: 301, method: "POST", expectedMethod: "GET"),
        Case(status: 302, method: "POST", expectedMethod: "GET"),
        Case(status: 301, method: "PUT", expectedMethod: "PUT"),
        Case(status: 302, method: "DELETE", expectedMethod: "DELETE"),
        Case(status: 303, method: "POST", expectedMethod: "GET"),
        Case(status: 303, method: "PUT", expectedMethod: "GET"),
        Case(status: 303, method: "HEAD", expectedMethod: "HEAD"),
        Case(status: 307, method: "POST", expectedMethod: "POST"),
        Case(status: 307, method: "PUT", expectedMethod: "PUT"),
        Case(status: 308, method: "POST", expectedMethod: "POST"),
        Case(status: 308, method: "PATCH", expectedMethod: "PATCH"),
    ]

    @Test(arguments: cases) func methodAndBodyFollowTheBrowserRules(_ rule: Case) async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let body = Data((0..<4096).map { UInt8($0 % 251) })
        let request = ProxiedRequest(
            url: server.url("/redirect/\(rule.status)?to=/echo"), method: rule.method,
            headers: [("Content-Type", "application/octet-stream"), ("Content-Language", "de"), ("X-Trace", "7")],
            body: body)
        let outcome = await proxy.run(request)

        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        let head = try #require(outcome.head)
        #expect(head.statusCode == 200)
        #expect(head.redirected)
        #expect(head.url.absoluteString == server.base() + "/echo")
        let seen = server.requests
        try #require(seen.count == 2)
        #expect(seen[0].method == rule.method)
        #expect(seen[0].body == (rule.sendsBody ? body : Data()))
        #expect(seen[1].method == rule.expectedMethod)
        #expect(seen[1].values("x-trace") == ["7"], "headers that do not describe the body survive every redirect")
        if !rule.methodChanges {
            #expect(seen[1].body == seen[0].body, "\(rule.status) keeps the body byte for byte")
            #expect(seen[1].values("content-type") == ["application/octet-stream"])
            #expect(seen[1].values("content-language") == ["de"])
        } else {
            #expect(seen[1].body.isEmpty)
            #expect(seen[1].values("content-type").isEmpty, "the body's headers go with the body")
            #expect(seen[1].values("content-language").isEmpty)
            #expect(seen[1].values("content-length").allSatisfy { $0 == "0" })
        }
    }

    @Test func redirectModeErrorFailsAndManualReturnsTheRedirect() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let url = server.url("/redirect/302?to=/echo")

        let refused = await proxy.run(ProxiedRequest(url: url, redirect: .error))
        guard case .redirectRefused = refused.error else {
            Issue.record("expected redirectRefused, got \(refused.events)")
            return
        }
        #expect(refused.head == nil)

        let manual = await proxy.run(ProxiedRequest(url: url, redirect: .manual))
        let head = try #require(manual.head)
        #expect(head.statusCode == 302)
        #expect(!head.redirected)
        #expect(head.headers.contains { $0.name.lowercased() == "location" && $0.value == "/echo" })
        #expect(manual.finished)
        #expect(server.requests.map(\.path) == ["/redirect/302", "/redirect/302"], "neither mode followed")
    }

    @Test func twentyRedirectsAreFollowedAndTheTwentyFirstFails() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())

        let twenty = await proxy.run(ProxiedRequest(url: server.url("/loop/20")))
        #expect(twenty.bodyText == "done")
        #expect(twenty.head?.url.path == "/loop/0")

        let tooMany = await proxy.run(ProxiedRequest(url: server.url("/loop/21")))
        #expect(tooMany.error == .tooManyRedirects(limit: 20))
        #expect(tooMany.head == nil)
    }

    @Test func aRedirectToAnotherSchemeIsRefused() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let outcome = await proxy.run(ProxiedRequest(url: server.url("/redirect/302?to=file:///etc/passwd")))
        guard case .redirectRefused(let why) = outcome.error else {
            Issue.record("expected redirectRefused, got \(outcome.events)")
            return
        }
        #expect(why.contains("file"))
    }

    @Test func aRedirectWithoutLocationIsTheAnswer() async throws {
        let server = try await ProxyTestServer.start()
        let proxy = NativeProxy(policy: loopbackPolicy())
        let outcome = await proxy.run(ProxiedRequest(url: server.url("/redirect/301")))
        #expect(outcome.head?.statusCode == 301)
        #expect(outcome.bodyText == "moved")
        #expect(outcome.finished)
    }
}
