import Foundation
import HybridKit
import Testing

/// Fetch's "HTTP-redirect fetch" as ``RedirectRule`` applies it for every native client.
@Suite struct RedirectRuleTests {
    static func hop(_ method: String, _ url: String = "https://a.example/form") throws -> RedirectHop {
        RedirectHop(
            url: try #require(URL(string: url)), method: method,
            headers: [("Content-Type", "text/plain"), ("Authorization", "Bearer t"), ("X-Keep", "1")],
            body: Data("body".utf8))
    }

    @Test func temporaryAndPermanentRedirectsKeepMethodBodyAndItsHeaders() throws {
        for status in [307, 308] {
            let next = try RedirectRule.next(after: Self.hop("POST"), status: status, location: "/done")
            #expect(next.method == "POST" && next.body == Data("body".utf8))
            #expect(next.headers.map(\.name) == ["Content-Type", "Authorization", "X-Keep"])
            #expect(next.url.absoluteString == "https://a.example/done")
        }
    }

    @Test func postAnswered301Or302AndAnythingAnswered303BecomesABodilessGET() throws {
        for (method, status) in [("POST", 301), ("POST", 302), ("POST", 303), ("PUT", 303), ("DELETE", 303)] {
            let next = try RedirectRule.next(after: Self.hop(method), status: status, location: "/done")
            #expect(next.method == "GET", "\(method) \(status)")
            #expect(next.body == nil)
            #expect(next.headers.map(\.name) == ["Authorization", "X-Keep"], "the body's headers go with it")
        }
        let put = try RedirectRule.next(after: Self.hop("PUT"), status: 302, location: "/done")
        #expect(put.method == "PUT" && put.body != nil, "301 and 302 change POST only")
    }

    @Test func leavingTheOriginDropsAuthorizationAndTaintsTheChain() throws {
        let next = try RedirectRule.next(after: Self.hop("POST"), status: 307, location: "https://b.example/x#frag")
        #expect(!next.headers.contains { $0.name == "Authorization" })
        #expect(next.crossedOrigins)
        #expect(next.url.absoluteString == "https://b.example/x", "fragments never go on the wire")
        let back = try RedirectRule.next(after: next, status: 307, location: "https://a.example/y")
        #expect(back.crossedOrigins, "once crossed, the chain stays tainted")
    }

    @Test func redirectsToOtherSchemesAreRefusedWithTheURLs() throws {
        let error = #expect(throws: RedirectRefusal.self) {
            try RedirectRule.next(after: Self.hop("GET"), status: 302, location: "file:///etc/passwd")
        }
        #expect(error?.reason.contains("'file'") == true)
        #expect(error?.reason.contains("https://a.example/form") == true)
    }

    @Test func originsCompareSchemeHostAndDefaultPort() throws {
        let url = { (text: String) in try #require(URL(string: text)) }
        #expect(WebOrigin.same(try url("https://A.example./x"), try url("https://a.example:443/y")))
        #expect(!WebOrigin.same(try url("http://a.example/"), try url("https://a.example/")))
        #expect(WebOrigin(try url("hybrid://a.example/")) == nil)
        #expect(WebOrigin(try url("http://[::1]:8080/"))?.description == "http://[::1]:8080")
    }
}
