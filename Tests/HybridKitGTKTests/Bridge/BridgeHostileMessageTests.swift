#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Testing

/// Hostile pages: messages posted around the runtime, malformed and oversized messages, forged frames.
/// Every message gets a typed error (or is refused), nothing crashes, and the bridge keeps answering.
@Suite(.serialized) struct BridgeHostileMessageTests {
    static let echo = BridgeModule("echo", access: .anyPage) { module in
        module.method("text") { (text: String, _) in text }
    }
    static let guarded = BridgeModule("guarded", access: .origins("app://demo", allowsSubframes: true)) { module in
        module.method("text") { (text: String, _) in text }
    }

    /// The error code of each reply batch the page collected.
    static func codes(_ results: [String]) -> [String?] {
        results.map { result in
            guard let batch = try? JSONSerialization.jsonObject(with: Data(result.utf8)) as? [[String: Any]],
                let error = batch.first?["e"] as? [String: Any]
            else { return nil }
            return error["code"] as? String
        }
    }

    @Test @GTKActor func postsAroundTheRuntimeAreRefused() async throws {
        let metrics = MetricsSummary.installed()
        let refusedBefore = metrics.total(HybridMetrics.bridgeRefused)
        let page = try await TestPage.ready(modules: [Self.echo])
        defer { page.close() }
        #expect(page.view.verifiesMessageFrames, "the frame-stamping web extension must be loaded")

        _ = try await page.evaluate(
            """
            (() => {
              const post = (m) => webkit.messageHandlers.hybridReply.postMessage(m).then(
                (reply) => JSON.stringify(reply), (error) => 'rejected: ' + error.message);
              let nested = []; for (let i = 0; i < 10000; i++) nested = [nested];
              const call = 'H1 call 1 0123456789abcdef main app://demo echo text\\n"x"';
              window.raw = Promise.all([post(42), post(null), post(nested), post(call), post('garbage')])
                .then((all) => { window.rawResults = all; });
              window.errors = [];
              hybrid.on('error', (e) => window.errors.push(e.code));
              webkit.messageHandlers.hybrid.postMessage({ evil: true });
              webkit.messageHandlers.hybrid.postMessage(call);
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.rawResults && window.errors.length === 2")
        let codes = Self.codes(try await page.evaluate("window.rawResults", as: [String].self))
        // Not strings: unreadable. Strings, however well formed: not stamped by the engine, so refused.
        #expect(codes == ["bad_message", "bad_message", "bad_message", "denied", "denied"])
        #expect(try await page.evaluate("window.errors", as: [String].self) == ["bad_message", "denied"])
        #expect(await page.page.bridge.stats.calls == 0)
        #expect(metrics.total(HybridMetrics.bridgeRefused) - refusedBefore >= 7, "hybrid_bridge_refused counts them")
        _ = try await page.evaluate(
            "hybrid.call('echo', 'text', 'alive').then((t) => { window.alive = t; }), true", as: Bool.self)
        try await page.waitFor("window.alive === 'alive'")
    }

    @Test @GTKActor func malformedAndOversizedMessagesGetTypedErrors() async throws {
        let page = try await TestPage.ready(modules: [Self.echo, Self.guarded])
        defer { page.close() }
        // Through the runtime: what a careless or hostile page can send with hybrid.call.
        _ = try await page.evaluate(
            """
            (() => {
              const outcome = (p) => p.then((v) => 'ok:' + JSON.stringify(v).slice(0, 40), (e) => e.code);
              let nested = []; for (let i = 0; i < 10000; i++) nested = [nested];
              window.viaRuntime = Promise.all([
                outcome(hybrid.call('echo', 'text', nested)),
                outcome(hybrid.call('echo', 'text', 'x'.repeat(50 * 1024 * 1024))),
                outcome(hybrid.call('echo', 'text', 12)),
                outcome(hybrid.call('nope', 'x')),
                outcome(hybrid.call('echo', 'nope')),
                hybrid.call('echo', 'text', '\\ud800 lone').then((v) => 'ok:' + v, (e) => e.code + ': ' + e.message),
                outcome(hybrid.call('echo', 'text', { toJSON() { throw new Error('no'); } })),
              ]).then((all) => { window.runtimeResults = all; });
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.runtimeResults", timeout: .seconds(60))
        let viaRuntime: [String] = try await page.evaluate("window.runtimeResults")
        #expect(viaRuntime[0] == "bad_message", "10,000-deep arguments")
        #expect(viaRuntime[1] == "bad_message", "50 MB arguments")
        #expect(viaRuntime[2] == "bad_arguments")
        #expect(viaRuntime[3] == "unknown_module")
        #expect(viaRuntime[4] == "unknown_method")
        // JSON.stringify escapes a lone surrogate; the bridge refuses it (never decoded as U+FFFD), naming it.
        #expect(
            viaRuntime[5]
                == "bad_arguments: arguments hold a lone UTF-16 surrogate (\\ud800); strings must be valid Unicode")
        #expect(viaRuntime[6] == "bad_arguments")

        // The engine-stamped channel is the runtime's alone: taken before page scripts run, in every frame,
        // including frames a page makes itself. (Malformed heads on that channel are covered by the unit
        // tests of the parser and of BridgeEngine.)
        let reachable: [String] = try await page.evaluate(
            """
            (() => {
              const frame = document.createElement('iframe');
              document.body.appendChild(frame);
              return [typeof window.__hybridFramePost, typeof frame.contentWindow.__hybridFramePost,
                      typeof frame.contentWindow.hybrid];
            })()
            """)
        #expect(reachable[0] == "undefined" && reachable[1] == "undefined", "\(reachable)")
    }
}
#endif
