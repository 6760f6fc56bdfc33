#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import Hummingbird
import HybridKit
import HybridKitGTK
import HybridTestServers
import Synchronization
import Testing

/// What the navigation policy handed the host, in real WebKitGTK. Touched on GTK's thread only.
final class PolicyHostRecorder: NavigationPolicyHost, @unchecked Sendable {
    var external: [ExternalLink] = []
    var newContainers: [NewWindowRequest] = []
    var downloads: [EngineDownload] = []
    var failures: [SubresourceLoadFailure] = []
    var blocked: [URL] = []
    let dialogs = Mutex<[ScriptDialog]>([])
    /// Answers by dialog message; a message not listed is never answered.
    let answers: [String: ScriptDialogAnswer]

    init(answers: [String: ScriptDialogAnswer] = [:]) { self.answers = answers }

    func openExternally(_ link: ExternalLink) { external.append(link) }
    func openInNewContainer(_ request: NewWindowRequest) { newContainers.append(request) }
    func didRecognizeDownload(_ download: EngineDownload) { downloads.append(download) }
    func didFailSubresourceLoad(_ failure: SubresourceLoadFailure) { failures.append(failure) }
    func didBlockNavigation(to url: URL, reason: String) { blocked.append(url) }
    func runScriptDialog(_ dialog: ScriptDialog) async -> ScriptDialogAnswer? {
        dialogs.withLock { $0.append(dialog) }
        if let answer = answers[dialog.message] { return answer }
        try? await Task.sleep(for: .seconds(120))
        return nil
    }
}

/// The request heads a loopback server saw.
final class SeenRequests: Sendable {
    private let seen = Mutex<[(path: String, userAgent: String)]>([])
    func add(_ path: String, _ userAgent: String) { seen.withLock { $0.append((path, userAgent)) } }
    var all: [(path: String, userAgent: String)] { seen.withLock { $0 } }
}

/// A real web view with a ``NavigationPolicyController`` installed, and a loopback server with pages for it.
@GTKActor
final class PolicyTestRig {
    let view: GTKWebView
    let policy: NavigationPolicyController
    let host: PolicyHostRecorder
    let loads = LoadEvents()
    let server: LoopbackServer
    let seen: SeenRequests
    let root: URL

    init(
        configuration: NavigationPolicyConfiguration = NavigationPolicyConfiguration(),
        settings: WebViewSettings = WebViewSettings(), answers: [String: ScriptDialogAnswer] = [:],
        files: [String: String] = [:]
    ) async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-policy-\(UUID().uuidString)")
        for (path, body) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(body.utf8).write(to: file)
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let seen = SeenRequests()
        self.seen = seen
        server = try await LoopbackServer.start(serving: root) { router in
            router.get("/ua") { request, _ in
                seen.add("/ua", request.headers[.userAgent] ?? "")
                return Self.html("<title>ua</title>")
            }
            router.get("/attachment") { _, _ in
                Self.html(
                    "<title>attachment</title>",
                    extra: [.contentDisposition: "attachment; filename=\"report.html\""])
            }
            router.get("/archive.zip") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/zip"],
                    body: .init(
                        byteBuffer: ByteBuffer(bytes: [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18))))
            }
        }
        try GTKRuntime.shared.start(.headless)
        view = GTKWebView(configuration: GTKWebView.Configuration(settings: settings))
        host = PolicyHostRecorder(answers: answers)
        policy = NavigationPolicyController(engine: view, configuration: configuration, host: host)
        policy.next = loads
        view.navigationDelegate = policy
        policy.install(on: view)
    }

    nonisolated static func html(_ body: String, extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8"]
        headers.append(contentsOf: extra)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    func url(_ path: String) throws -> URL { try #require(URL(string: server.origin + path)) }

    /// Loads `html` as if served from the server's origin, and waits until it finished.
    func show(_ html: String) async throws {
        let count = loads.finished
        view.loadHTML(html, baseURL: try url("/"))
        try await waitUntil(timeout: .seconds(30)) { loads.finished > count }
    }

    func load(_ url: URL) async throws {
        let count = loads.finished
        try view.load(EngineRequest(url: url))
        try await waitUntil(timeout: .seconds(30)) { loads.finished > count }
    }

    func evaluate(_ script: String) async throws -> String? { try await view.evaluateJavaScript(script) }

    func close() {
        view.close()
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }
}
#endif
