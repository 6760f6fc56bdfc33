#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Testing

/// What only WebKitGTK's adapter does. The port's behaviours (loads, scripts, scheme tasks, cookies, process
/// termination, snapshots, user agents…) are checked once for every engine by HybridKitTesting's conformance
/// suite: EngineConformanceGTKTests.
@Suite(.serialized) struct EngineAdapterTests {
    final class Handler: SchemeHandler {
        func start(_ task: any SchemeTask) { task.fail(.notFound(task.request.url.path)) }
        func stop(_ task: any SchemeTask) {}
    }

    /// WebKitGTK cannot load a main-frame request with a method or body of its own: the adapter refuses it
    /// rather than load a GET in its place.
    @Test @GTKActor func refusesToLoadWhatItCannotSendFaithfully() throws {
        try GTKRuntime.shared.start(.headless)
        let view = GTKWebView()
        defer { view.close() }
        try view.setSchemeHandler(Handler(), forScheme: "enginetest")
        let post = EngineRequest(
            url: try #require(URL(string: "enginetest://host/form")), method: "POST", body: Data("a=1".utf8))
        #expect(throws: EngineError.self) { try view.load(post) }
    }
}
#endif
