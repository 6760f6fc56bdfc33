import Foundation
import HybridCore
import HybridGTK
import Testing

/// A hostile page posting straight to the message handlers, bypassing the runtime: every message gets an
/// error (or is refused) and the bridge keeps working.
@Suite(.serialized) struct BridgeHostileMessageTests {
    static let echo = BridgeModule("echo", access: .origins("app://demo", allowsSubframes: true)) { module in
        module.method("text") { (text: String, _) in text }
    }

    @Test @GTKActor func hostileMessagesGetErrorsAndTheBridgeSurvives() async throws {
        let page = try await TestPage.ready(modules: [Self.echo])
        defer { page.close() }

        // Through the reply handler the page learns each message's fate; collect them.
        _ = try await page.evaluate(
            """
            (() => {
              const post = (m) => webkit.messageHandlers.hybridReply.postMessage(m).then(
                (reply) => JSON.stringify(reply), (error) => 'rejected: ' + error.message);
              const token = '0123456789abcdef';
              const head = (module, method) => `H1 call 1 ${token} sub app://demo ${module} ${method}\\n`;
              const deep = '['.repeat(10000) + ']'.repeat(10000);
              let nested = []; for (let i = 0; i < 10000; i++) nested = [nested];
              window.hostile = Promise.all([
                post(42), post({ module: 'echo' }), post(null), post([1, 2]), post(nested),
                post('H1 call'), post('H1 call one ' + token + ' sub app://demo echo text\\n"x"'),
                post(head('echo', 'text') + '12'), post(head('nope', 'x') + 'null'), post(head('echo', 'nope') + 'null'),
                post(head('echo', 'text') + deep), post(head('echo', 'text') + '"\\ud800 lone"'),
                post('\\ud800' + head('echo', 'text') + '"x"'),
                post(head('echo', 'text') + JSON.stringify('x'.repeat(50 * 1024 * 1024))),
              ]).then((all) => { window.hostileResults = all; return true; });
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.hostileResults", timeout: .seconds(60))
        let results: [String] = try await page.evaluate("window.hostileResults")
        #expect(results.count == 14)
        func code(_ index: Int) -> String? {
            guard let data = results[index].data(using: .utf8),
                let batch = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]],
                let error = batch.first?["e"] as? [String: Any]
            else { return nil }
            return error["code"] as? String
        }
        for index in [0, 1, 2, 3, 4, 5, 6, 10, 12, 13] {
            #expect(code(index) == "bad_message", "message \(index): \(results[index].prefix(200))")
        }
        #expect(code(7) == "bad_arguments")
        #expect(code(8) == "unknown_module")
        #expect(code(9) == "unknown_method")
        // A raw lone surrogate does not survive the engine's UTF-16 → UTF-8 conversion intact; whatever
        // arrives is refused with a typed error, never a crash.
        #expect(["bad_message", "bad_arguments"].contains(code(11)), "\(results[11].prefix(300))")

        // Main-frame handler, no reply: garbage becomes an 'error' event, and the bridge still answers.
        _ = try await page.evaluate(
            """
            (() => {
              window.errors = [];
              hybrid.on('error', (e) => window.errors.push(e.code));
              webkit.messageHandlers.hybrid.postMessage({ evil: true });
              webkit.messageHandlers.hybrid.postMessage('not a bridge message');
              hybrid.call('echo', 'text', 'still alive').then((t) => { window.alive = t; });
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.alive === 'still alive' && window.errors.length === 2")
        let errors: [String] = try await page.evaluate("window.errors")
        #expect(errors == ["bad_message", "bad_message"])
        #expect(await page.page.bridge.stats.refused >= 12)
    }

    @Test @GTKActor func aSubframeCannotPoseAsTheMainDocumentOfAnotherOrigin() async throws {
        let page = try await TestPage.ready(modules: [Self.echo])
        defer { page.close() }
        _ = try await page.evaluate(
            """
            (() => {
              window.errors = [];
              hybrid.on('error', (e) => window.errors.push(e.code + ': ' + e.message));
              webkit.messageHandlers.hybrid.postMessage('H1 call 9 0123456789abcdef main https://bank.example echo text\\n"x"');
              return true;
            })()
            """, as: Bool.self)
        // The forged call names a token this document does not have, so the page sees nothing resolve;
        // natively it was refused as denied.
        try await waitUntil(timeout: .seconds(5)) { await page.page.bridge.stats.refused == 1 }
        #expect(await page.page.bridge.stats.calls == 0)
    }
}
