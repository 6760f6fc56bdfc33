#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKitGTK
import Testing

@testable import HybridKit

/// `hybrid.post` from frames in real WebKitGTK: each message carries the security origin and main-frame flag the
/// engine reports for the frame that posted, whatever the frame writes in its message or claims in its value, so a
/// host can tell a cross-origin subframe's message from the main frame's; a sandboxed (opaque-origin) frame and
/// a frame the rule does not name are refused.
@Suite(.serialized) struct PageMessageFrameGTKTests {
    static let pages: [String: String] = [
        "main/index.html": """
        <!doctype html><meta charset="utf-8"><body>
        <iframe id="other" src="bt://other/frame.html"></iframe>
        <iframe id="sandboxed" sandbox="allow-scripts" src="bt://main/frame.html"></iframe>
        <iframe id="stranger" src="bt://stranger/frame.html"></iframe>
        <script>
        window.reports = {};
        window.addEventListener('message', (e) => { if (e.data && e.data.from) window.reports[e.data.from] = e.data.outcome; });
        </script>
        """,
        // Each frame posts once it is ready, claiming to be the main frame of bt://main, and reports the outcome.
        "main/frame.html": Self.frame("sandboxed"),
        "other/frame.html": Self.frame("other"),
        "stranger/frame.html": Self.frame("stranger"),
    ]

    static func frame(_ name: String) -> String {
        """
        <!doctype html><script>
        hybrid.ready.then(() => hybrid.post('hello', { from: '\(name)', origin: 'bt://main', isMainFrame: true }))
          .then(() => 'ok', (e) => e.code)
          .then((outcome) => parent.postMessage({ from: '\(name)', outcome }, '*'));
        </script>
        """
    }

    @Test @GTKActor func aSubframeOfAnotherOriginPostsAsItself() async throws {
        let fanOut = PageMessageFanOut()
        let module = PageMessageFanOut.module(
            of: fanOut, access: .origins("bt://main", "bt://other", allowsSubframes: true))
        let messages = fanOut.stream("hello")
        let page = try TestPage(modules: [module])
        defer { page.close() }
        try page.serve(Self.pages, scheme: "bt", loading: "bt://main/index.html")
        try await page.waitFor("window.reports && Object.keys(window.reports).length === 3")
        let reports: [String: String] = try await page.evaluate("window.reports")
        #expect(reports == ["other": "ok", "sandboxed": "denied", "stranger": "denied"])
        // The main frame posts too, so the host's sequence holds exactly what was accepted.
        _ = try await page.view.evaluateJavaScript("hybrid.post('hello', { from: 'main' }), true")
        var received: [PageMessage] = []
        for await message in messages {
            received.append(message)
            if received.count == 2 { break }
        }
        let fromOther = try #require(received.first { $0.value["from"] == .string("other") })
        #expect(fromOther.origin == "bt://other" && !fromOther.isMainFrame, "\(fromOther)")
        let fromMain = try #require(received.first { $0.value["from"] == .string("main") })
        #expect(fromMain.origin == "bt://main" && fromMain.isMainFrame, "\(fromMain)")
    }
}
#endif
