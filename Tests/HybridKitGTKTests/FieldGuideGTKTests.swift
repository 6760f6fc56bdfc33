#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridTestServers
import Testing

/// The rest of the field guide (seeds 000, 002, 004) in real WebKitGTK against a loopback server.
@Suite(.serialized) struct FieldGuideGTKTests {
    @Test @GTKActor func nonASCIIAndSpaceURLsLoadTheRightFile() async throws {
        let rig = try await PolicyTestRig(files: [
            "商品 列表/a b.html": "<title>found</title>", "商品列表/ab.html": "<title>wrong</title>",
        ])
        defer { rig.close() }
        let url = try WebURLBuilder.url(rig.server.origin + "/商品 列表/a b.html?q=鞋 子")
        try await rig.load(url)
        // The title arrives a moment after the load finishes.
        try await waitUntil(timeout: .seconds(10)) { rig.view.title != nil && rig.view.title != "" }
        #expect(rig.view.title == "found")
        #expect(
            try await rig.evaluate("location.pathname + location.search")
                == "\"/%E5%95%86%E5%93%81%20%E5%88%97%E8%A1%A8/a%20b.html?q=%E9%9E%8B%20%E5%AD%90\"")
        #expect(try await rig.evaluate("decodeURIComponent(location.pathname)") == "\"/商品 列表/a b.html\"")
    }

    @Test @GTKActor func userAgentOverrideAndAppendAreWhatTheServerReceives() async throws {
        let appended = try await PolicyTestRig(settings: WebViewSettings(userAgent: .appending("HybridTest/1.0")))
        defer { appended.close() }
        try await appended.load(try appended.url("/ua"))
        let received = try #require(appended.seen.all.last?.userAgent)
        #expect(received.hasPrefix("Mozilla/5.0 "))
        #expect(received.hasSuffix(") HybridTest/1.0") || received.hasSuffix(" HybridTest/1.0"))
        #expect(received.count > "HybridTest/1.0".count + 20)
        // What native requests are given is what the engine sent.
        #expect(appended.view.customUserAgent == received)
        #expect(try await appended.evaluate("navigator.userAgent") == "\"\(received)\"")

        let replaced = try await PolicyTestRig(settings: WebViewSettings(userAgent: .replacing("ShopBot/9 (hybrid)")))
        defer { replaced.close() }
        try await replaced.load(try replaced.url("/ua"))
        #expect(replaced.seen.all.last?.userAgent == "ShopBot/9 (hybrid)")
        #expect(replaced.view.customUserAgent == "ShopBot/9 (hybrid)")
    }

    // Clears every cookie of the engine store all web views share: not while the cookie sync tests use it.
    @Test(.engineCookieStoreExclusive) @GTKActor func websiteDataIsClearedByType() async throws {
        let rig = try await PolicyTestRig(files: ["store.html": "<title>store</title>"])
        defer { rig.close() }
        let page = try rig.url("/store.html")
        let cookieURL = try rig.url("/")
        func cookieNames() async throws -> [String] {
            try await rig.view.cookieStore.cookies(for: cookieURL).map(\.name).filter { $0 == "kept" }
        }
        try await rig.load(page)
        _ = try await rig.evaluate("localStorage.setItem('k', 'v'); document.cookie = 'kept=1; path=/'; true")
        #expect(try await cookieNames() == ["kept"])

        try await rig.view.clearWebsiteData(.localStorage, modifiedSince: nil)
        try await rig.load(page)
        #expect(try await rig.evaluate("localStorage.getItem('k')") == "null")
        #expect(try await rig.evaluate("document.cookie.includes('kept=1')") == "true")
        #expect(try await cookieNames() == ["kept"])

        _ = try await rig.evaluate("localStorage.setItem('k', 'again'); true")
        try await rig.view.clearWebsiteData(.cookies, modifiedSince: nil)
        try await rig.load(page)
        #expect(try await cookieNames().isEmpty)
        #expect(try await rig.evaluate("document.cookie.includes('kept=1')") == "false")
        #expect(try await rig.evaluate("localStorage.getItem('k')") == "\"again\"")

        // By date: what was written in the last hour, which is all of it.
        try await rig.view.clearWebsiteData(.localStorage, modifiedSince: Date().addingTimeInterval(-3600))
        try await rig.load(page)
        #expect(try await rig.evaluate("localStorage.getItem('k')") == "null")
        // libsoup keeps no cookie dates: WebKitGTK cannot clear cookies by date, and says so rather than pretend.
        await #expect(throws: EngineError.self) {
            try await rig.view.clearWebsiteData(
                [.cookies, .localStorage], modifiedSince: Date().addingTimeInterval(-60))
        }
    }

    @Test @GTKActor func subresourceFailuresAreReportedWithTheirURL() async throws {
        let rig = try await PolicyTestRig(files: ["ok.png": "not really a png"])
        defer { rig.close() }
        // A stopped server's port refuses connections; .invalid never resolves (RFC 6761).
        let gone = try await LoopbackServer.start(serving: rig.root)
        let refused = "http://127.0.0.1:\(gone.port)/refused.png"
        await gone.shutdown()
        try await rig.show(
            """
            <title>resources</title>
            <img src="\(refused)">
            <script src="http://no-such-host.invalid/missing.js"></script>
            <img src="/ok.png">
            """)
        try await waitUntil(timeout: .seconds(30)) { rig.host.failures.count >= 2 }
        let urls = Set(rig.host.failures.compactMap(\.url?.absoluteString))
        #expect(urls == [refused, "http://no-such-host.invalid/missing.js"])
        #expect(rig.host.failures.allSatisfy { !$0.error.isEmpty && !$0.isCancellation })
    }

    @Test @GTKActor func aPageRestoredFromTheBackForwardCacheGetsTheRestoreEvent() async throws {
        let rig = try await PolicyTestRig(files: [
            "a.html": """
            <title>a</title>
            <script>
            window.restores = 0;
            window.loadedAt = Math.random();
            hybrid.on('restore', (info) => { window.restores += 1; window.restoreInfo = info; });
            </script>
            """,
            "b.html": "<title>b</title>",
        ])
        defer { rig.close() }
        let page = try HybridPage(engine: rig.view)
        defer { page.close() }
        // The page sits in front of the policy, as a container would wire them.
        page.delegate = rig.policy
        try await rig.load(try rig.url("/a.html"))
        let firstLoad = try #require(try await rig.evaluate("window.loadedAt"))
        try await waitUntil(timeout: .seconds(10)) {
            (try? await rig.evaluate("hybrid.isReady")) == "true"
        }
        try await rig.load(try rig.url("/b.html"))
        // The title arrives a moment after the load finishes.
        try await waitUntil(timeout: .seconds(10)) { rig.view.title == "b" }
        _ = try await rig.evaluate("history.back(); true")
        try await waitUntil(timeout: .seconds(10)) { rig.view.title == "a" }
        try await waitUntil(timeout: .seconds(10)) { (try? await rig.evaluate("window.restores")) == "1" }
        // The same document came back (its scripts did not run again), and the bridge works again.
        #expect(try await rig.evaluate("window.loadedAt") == firstLoad)
        #expect(try await rig.evaluate("window.restoreInfo.persisted") == "true")
        try await waitUntil(timeout: .seconds(10)) { (try? await rig.evaluate("hybrid.isReady")) == "true" }
    }
}
#endif
