#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridCookies
import HybridKitGTK
import HybridPackages
import Synchronization
import Testing

/// One app as the cookie tests see it: a jar, native networking through it (`URLSessionNetworkFetcher` with a
/// `JarCookieHandler`), a real web view whose engine store is synced with the jar, and a package served under
/// `hybrid://` (standing for site A) with the document.cookie shim.
@GTKActor
final class CookieHarness {
    let jar: CookieJar
    let handler: JarCookieHandler
    let fetcher: URLSessionNetworkFetcher
    let view: GTKWebView
    let page: HybridPage
    let sync: EngineCookieSync
    let events: CookiePageEvents

    init(jar: CookieJar, sites: CookieSites, root: URL, documentCookieShim: Bool = true) async throws {
        self.jar = jar
        let site = root.appendingPathComponent("package-site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data("<!doctype html><title>package</title>".utf8).write(to: site.appendingPathComponent("index.html"))
        let packages = root.appendingPathComponent("packages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: packages, withIntermediateDirectories: true)
        let store = try installTestPackage(
            site: site, id: "com.example.cookies", serves: [sites.a.origin + "/"], in: packages)
        let route = try OfflineRoute(scheme: "hybrid", prefixes: [sites.a.origin + "/", sites.b.origin + "/"])
        let mapping = OfflineURLMapping(route: route)
        handler = JarCookieHandler(jar: jar) { mapping.packageURL(for: $0) }
        fetcher = URLSessionNetworkFetcher(cookies: handler)

        try GTKRuntime.shared.start(.headless)
        view = GTKWebView()
        page = try HybridPage(engine: view)
        let scheme = PackageSchemeHandler(
            store: store, route: route, hop: EngineExecutorHop.hop(onExecutorOf: view),
            navigate: PackageSchemeHandler.navigator(for: view), network: fetcher)
        events = CookiePageEvents(scheme)
        page.delegate = events
        try view.setSchemeHandler(scheme, forScheme: "hybrid")
        if documentCookieShim {
            try DocumentCookieBridge(jar: jar, scheme: "hybrid") { mapping.packageURL(for: $0) }.install(on: page)
        }
        sync = EngineCookieSync(jar: jar, store: view.cookieStore)
        await sync.start()
    }

    func close() {
        sync.stop()
        page.close()
        view.close()
    }

    func load(_ url: URL) async throws {
        let count = events.finished
        try view.load(EngineRequest(url: url))
        try await waitUntil(timeout: .seconds(30)) { events.finished > count }
    }

    /// Evaluates `script` and returns its JSON result as text.
    @discardableResult
    func js(_ script: String) async throws -> String? {
        try await view.evaluateJavaScript(script)
    }

    var documentCookie: String {
        get async throws {
            let json = try await js("document.cookie") ?? "\"\""
            return try JSONDecoder().decode(String.self, from: Data(json.utf8))
        }
    }

    /// `fetch(url)` in the page (same origin); the response text, or "ERR …".
    func fetchInPage(_ url: String) async throws -> String {
        let quoted = String(decoding: try JSONEncoder().encode(url), as: UTF8.self)
        try await js(
            "window.__r = undefined; fetch(\(quoted), {credentials: 'include'}).then(r => r.text())"
                + ".then(t => { window.__r = t; }, e => { window.__r = 'ERR ' + e; }); true")
        let view = self.view
        try await waitUntil(timeout: .seconds(30)) {
            try await view.evaluateJavaScript("window.__r !== undefined") == "true"
        }
        let json = try await js("window.__r") ?? "\"\""
        return try JSONDecoder().decode(String.self, from: Data(json.utf8))
    }

    /// Waits until `script` is true in the page.
    func waitFor(_ script: String, timeout: Duration = .seconds(30)) async throws {
        let view = self.view
        try await waitUntil(timeout: timeout) { (try? await view.evaluateJavaScript("!!(\(script))")) == "true" }
    }

    /// A GET made by native code through the jar (the native login of the tests); the response text.
    func nativeGET(_ url: URL) async throws -> String {
        try await Self.get(url, with: fetcher)
    }

    nonisolated static func get(_ url: URL, with fetcher: URLSessionNetworkFetcher) async throws -> String {
        let body = BodyBox()
        return try await withCheckedThrowingContinuation { continuation in
            _ = fetcher.fetch(EngineRequest(url: url)) { event in
                switch event {
                case .response: break
                case .data(let data): body.append(data)
                case .finished: continuation.resume(returning: body.text)
                case .failed(let message): continuation.resume(throwing: NativeFetchError(message: message))
                }
            }
        }
    }
}

struct NativeFetchError: Error { let message: String }

private final class BodyBox: Sendable {
    private let data = Mutex(Data())
    func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }
    var text: String { String(decoding: data.withLock { $0 }, as: UTF8.self) }
}

/// Counts finished loads and tells the package handler which loads are the main frame's.
final class CookiePageEvents: NavigationDelegate, @unchecked Sendable {
    // Touched on GTK's thread only.
    private(set) var finished = 0
    private let handler: PackageSchemeHandler

    init(_ handler: PackageSchemeHandler) { self.handler = handler }

    func didStartNavigation(to url: URL?) {
        if let url { handler.noteMainFrameNavigation(to: url) }
    }

    func didFinishNavigation(to url: URL?) { finished += 1 }
    func didFailNavigation(to url: URL?, error: String) { finished += 1 }
}

/// A short tag that keeps each test's cookie names apart: every web view of the process shares one engine store.
func cookieTag() -> String { String(UUID().uuidString.prefix(8).lowercased()) }

func temporaryRoot(_ name: String) throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    return root
}
#endif
