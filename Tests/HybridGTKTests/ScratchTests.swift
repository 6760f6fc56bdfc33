import Foundation
import HybridCore
import HybridGTK
import Testing

final class NullHandler: ScriptMessageHandler { func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) { print("GOT", message.body) } }

@Suite(.serialized) struct ScratchTests {
    @Test @GTKActor func probe() async throws {
        try GTKRuntime.shared.start()
        let view = GTKWebView()
        let h = NullHandler()
        view.addScriptMessageHandler(h, name: "hybrid", replies: false)
        let loaded = LoadWaiter()
        view.navigationDelegate = loaded
        view.loadHTML("<title>hi</title><p id=x>hello</p>", baseURL: URL(string: "https://example.test/"))
        try await loaded.wait()
        for js in [
            "typeof window.webkit", "JSON.stringify(Object.getOwnPropertyDescriptor(window, 'webkit'))",
            "(() => { const h = window.webkit.messageHandlers.hybrid; const r = delete window.webkit; return [r, typeof window.webkit, typeof h.postMessage] })()",
            "typeof window.webkit",
            "(() => { const f = document.createElement('iframe'); document.body.appendChild(f); return typeof f.contentWindow.webkit })()",
            "(() => { const f = document.createElement('iframe'); document.body.appendChild(f); return typeof f.contentWindow.webkit.messageHandlers.hybrid })()",
            "'\\ud800'",
        ] {
            let r = try? await view.evaluateJavaScript(js)
            print("JS", js, "=>", r ?? "nil")
        }
        view.close()
    }
}
