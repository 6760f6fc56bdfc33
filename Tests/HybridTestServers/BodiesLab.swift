#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridNetwork
import HybridPackages

/// A loopback server with the body echo routes and the conformance pages, and a real web view whose `hybrid`
/// scheme stands for that server through a package handler wrapped with request interception. The same page
/// loads hooked at `hybrid://127.0.0.1:<port>/…` and unhooked at `http://127.0.0.1:<port>/…`.
///
/// Shared by the conformance suite (tests), `hybrid bench bodies` and demos.
@GTKActor
public final class BodiesLab {
    public enum LabError: Error, CustomStringConvertible {
        case noPages
        case timedOut(String)
        case script(String)
        public var description: String {
            switch self {
            case .noPages: "the HybridTestServers bundle has no Pages folder"
            case .timedOut(let what): "timed out waiting for \(what)"
            case .script(let why): "page script failed: \(why)"
            }
        }
    }

    public let server: LoopbackServer
    public let view: GTKWebView
    public let interception: RequestInterception
    private let root: URL

    /// Page prefix served with the full-proxy strategy (the query string picks the strategy).
    public static let proxyQuery = "strategy=proxy"

    /// - Parameter network: the package handler's network fallback, which sends body-by-id requests; by default
    ///   the one that streams a body while the page still uploads it.
    /// - Parameter bodyChannel: where the hooks send large bodies (`LoopbackBodyChannel`); nil: in slices.
    public init(
        proxy: (any RequestProxying)?, config: InterceptionConfig? = nil, extraPrefixes: [String] = [],
        network: any NetworkFetching = HTTPClientNetworkFetcher(), bodyChannel: (any BodyChannel)? = nil
    ) async throws {
        try GTKRuntime.shared.start(.headless)
        guard let pages = BodiesPages.directory else { throw LabError.noPages }
        server = try await LoopbackServer.start(serving: pages) { router in BodyEcho.addRoutes(to: router) }
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-bodies-\(UUID().uuidString)")
        let keys = PackageKeyPair.generate()
        let store = try PackageStore(root: root, trustedKey: keys.verificationKey)
        view = GTKWebView()
        let prefixes = ["http://127.0.0.1:\(server.port)/", "http://localhost:\(server.port)/"] + extraPrefixes
        let route = try OfflineRoute(scheme: "hybrid", prefixes: prefixes)
        let packages = PackageSchemeHandler(
            store: store, route: route, hop: EngineExecutorHop.hop(onExecutorOf: view), network: network)
        let mapping = OfflineURLMapping(route: route)
        var chosen = config ?? InterceptionConfig(chunkBytes: 256 * 1024)
        for host in ["127.0.0.1", "localhost"] {
            chosen.rules.append(
                .init(
                    prefix: "hybrid://\(host):\(server.port)/bodies/conformance.html?\(Self.proxyQuery)",
                    strategy: .fullProxy))
        }
        interception = try RequestInterception.install(
            on: view, scheme: "hybrid", inner: packages, config: chosen, proxy: proxy,
            mapURL: { mapping.packageURL(for: $0) }, bodyChannel: bodyChannel)
    }

    public func close() {
        view.close()
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    public enum Side: String, Sendable, CaseIterable {
        case unhooked, bodyByID, fullProxy
    }

    public func pageURL(_ side: Side, path: String = "bodies/conformance.html") -> String {
        switch side {
        case .unhooked: "http://127.0.0.1:\(server.port)/\(path)"
        case .bodyByID: "hybrid://127.0.0.1:\(server.port)/\(path)"
        case .fullProxy: "hybrid://127.0.0.1:\(server.port)/\(path)?\(Self.proxyQuery)"
        }
    }

    /// Loads `url` and waits until `ready` is true in it.
    public func load(_ url: String, ready: String = "window.conformance") async throws {
        guard let target = URL(string: url) else { throw LabError.script("bad URL \(url)") }
        // The page being left is marked: loading the URL it already shows must wait for the new document, not
        // find the old one ready (the next script would run in a page about to go away).
        _ = try? await view.evaluateJavaScript("window.__labLeaving = true")
        try view.load(EngineRequest(url: target))
        try await waitFor(
            "!window.__labLeaving && \(ready) && location.href === \(Self.quote(url))", timeout: .seconds(30))
    }

    public func waitFor(_ condition: String, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? await view.evaluateJavaScript("!!(\(condition))")) == "true" { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw LabError.timedOut(condition)
    }

    /// Runs `expression` (a promise) in the page and returns its resolved value as JSON text.
    public func run(_ expression: String, timeout: Duration = .seconds(60)) async throws -> String {
        let key = UUID().uuidString
        _ = try await view.evaluateJavaScript(
            """
            (function () {
              window.__labResults = window.__labResults || {};
              const key = \(Self.quote(key));
              window.__labResults[key] = null;
              Promise.resolve().then(() => \(expression)).then(
                (r) => { window.__labResults[key] = JSON.stringify(r === undefined ? null : r); },
                (e) => { window.__labResults[key] = JSON.stringify({ labError: String(e && e.message || e) }); });
              return true;
            })()
            """)
        try await waitFor("window.__labResults && window.__labResults[\(Self.quote(key))] !== null", timeout: timeout)
        let json = try await view.evaluateJavaScript("window.__labResults[\(Self.quote(key))]") ?? "null"
        return try JSONDecoder().decode(String.self, from: Data(json.utf8))
    }

    /// Runs a conformance case (`kind` body or scenario) in the loaded page and decodes its report.
    public func conformanceCase(kind: String, name: String, api: String) async throws -> JSONValue {
        let text = try await run(
            "new Promise((resolve) => { const k = 'c' + Math.random(); conformance.start(k, \(Self.quote(kind)), "
                + "\(Self.quote(name)), \(Self.quote(api))); const poll = () => window.results[k] ? "
                + "resolve(JSON.parse(window.results[k])) : setTimeout(poll, 5); poll(); })")
        return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static func quote(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
#endif
