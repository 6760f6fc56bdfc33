#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestSupport
import Testing

/// A load that fails is logged at the default level with what to check, in a real engine: a host that loads a URL
/// nothing serves (a package route's https prefix, a server that is down) must not be left with a blank view and a
/// silent log.
@Suite(.serialized) struct PageLoadFailureGTKTests {
    /// A handler's failure: its kind and what to check.
    static let advice =
        "page load notServed: "
        + PageLoadFailure(kind: .notServed, url: nil, message: "failed: the network is unreachable").advice

    @Test @GTKActor func aFailedLoadIsAWarningThatSaysWhatToCheck() async throws {
        let logs = LogCapture.installed()
        logs.reset()
        let page = try TestPage(modules: [])
        defer { page.close() }
        let failures = Failures()
        page.page.delegate = failures
        // A scheme whose handler fails every request, as a package route's miss does when its network is down.
        try page.view.setSchemeHandler(Failing(), forScheme: "unserved")
        try page.view.load(EngineRequest(url: try #require(URL(string: "unserved://shop.example/"))))
        try await waitUntil(timeout: .seconds(20)) { !failures.errors.isEmpty }
        #expect(logs.logged("hybrid.page", Self.advice), "the delegate heard \(failures.errors)")
        // A load the page served is not reported.
        page.page.delegate = page.loads
        logs.reset()
        try await page.load("test/blank.html")
        #expect(!logs.logged("hybrid.page", Self.advice))
    }

    final class Failing: SchemeHandler {
        func start(_ task: any SchemeTask) { task.fail(.failed("the network is unreachable")) }
        func stop(_ task: any SchemeTask) {}
    }

    final class Failures: NavigationDelegate, @unchecked Sendable {
        // Touched on GTK's thread only.
        var errors: [String] = []
        func didFailNavigation(to url: URL?, error: String) { errors.append(error) }
    }
}
#endif
