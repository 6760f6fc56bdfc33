import Foundation
import HybridCore
import HybridGTK
import Testing

@Suite(.serialized) struct EngineSmokeTests {
    @Test @GTKActor func loadsHTMLAndEvaluates() async throws {
        try GTKRuntime.shared.start()
        let view = GTKWebView()
        let loaded = LoadWaiter()
        view.navigationDelegate = loaded
        view.loadHTML("<title>hi</title><p id=x>hello</p>", baseURL: URL(string: "https://example.test/"))
        try await loaded.wait()
        let text = try await view.evaluateJavaScript("document.getElementById('x').textContent")
        #expect(text == "\"hello\"")
        #expect(view.title == "hi")
        view.close()
    }
}

final class LoadWaiter: NavigationDelegate, @unchecked Sendable {
    private var continuation: CheckedContinuation<Void, Never>?
    private var finished = false
    func didFinishNavigation(to url: URL?) {
        finished = true
        continuation?.resume()
        continuation = nil
    }
    @GTKActor func wait() async throws {
        if finished { return }
        await withCheckedContinuation { continuation = $0 }
    }
}
