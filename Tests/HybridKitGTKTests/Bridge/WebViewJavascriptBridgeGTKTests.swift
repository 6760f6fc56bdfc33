#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Synchronization
import Testing

/// Pages written for WebViewJavascriptBridge work unchanged: its setup function with the `__bridge_loaded__`
/// iframe, handler names that are any text, `callHandler` with and without data and callback,
/// `registerHandler`, `disableJavscriptAlertBoxSafetyTimeout`, and the older ready event.
@Suite(.serialized) struct WebViewJavascriptBridgeGTKTests {
    @Test @GTKActor func theLibrarysSetupAndAPIWorkUnchanged() async throws {
        let echoes = Mutex<[JSONValue]>([])
        let wvjb = BridgeModule("wvjb", access: .origins("app://demo")) { module in
            module.method("ObjC Echo") { (data: JSONValue, _) in
                echoes.withLock { $0.append(data) }
                return data
            }
            module.method("testObjcCallback") { (data: JSONValue, _) in
                JSONValue.object(["objc": .string("got it"), "data": data])
            }
        }
        let page = try TestPage(modules: [wvjb])
        defer { page.close() }
        try await page.load("test/wvjb-example.html")
        do {
            try await page.waitFor("document.getElementById('fire') && window.log.length >= 5", timeout: .seconds(10))
        } catch {
            let state = try await page.view.evaluateJavaScript(
                "JSON.stringify({ log: window.log, bridge: typeof window.WebViewJavascriptBridge, hybrid: typeof window.hybrid })"
            )
            Issue.record("the page did not get the bridge: \(state ?? "nothing")")
            throw error
        }

        // The bridge did not exist while the page's head script ran, and the callback ran after the body
        // was parsed: it found #buttons.
        #expect(try await page.evaluate("window.sync", as: String.self) == "undefined")
        let log: [String] = try await page.evaluate("window.log")
        #expect(!log.contains { $0.hasPrefix("window.onerror") }, "\(log)")
        #expect(Array(log.prefix(2)) == ["bridge", "second"], "\(log)")
        #expect(log.contains("ready event"))
        #expect(log.contains(#"ObjC Echo answered {"key":"value"}"#), "\(log)")
        #expect(log.contains("ObjC Echo without data answered null"), "\(log)")
        // Without a callback the call still reaches native.
        try await waitUntil(timeout: .seconds(10)) { echoes.withLock { $0.contains(.string("no callback")) } }

        _ = try await page.evaluate("document.getElementById('fire').click(), true", as: Bool.self)
        try await page.waitFor("window.log.some((line) => line.startsWith('testObjcCallback answered'))")
        let answered: String = try await page.evaluate(
            "window.log.find((line) => line.startsWith('testObjcCallback answered'))")
        let response = try JSONDecoder().decode(
            JSONValue.self, from: Data(answered.dropFirst("testObjcCallback answered ".count).utf8))
        #expect(response == .object(["data": .object(["foo": .string("bar")]), "objc": .string("got it")]))

        // Native calls the page's handlers by their names, spaces included.
        let echo = try await page.page.bridge.callJavaScript("JS Echo", ["from": "native"], as: [String: String].self)
        #expect(echo == ["from": "native"])
        let said = try await page.page.bridge.callJavaScript("testJavascriptHandler", 1, as: JSONValue.self)
        #expect(said == .object(["Javascript Says": .string("Right back atcha!"), "got": .number(1)]))

        // Once the bridge exists, a later setup call gets it at once, as with the real library.
        #expect(
            try await page.evaluate(
                "(() => { let got = false; setupWebViewJavascriptBridge(() => { got = true; }); return got; })()",
                as: Bool.self))
        // The bootstrap iframe never reached the network: the navigation policy dropped it.
        #expect(page.loads.finished == 1)
    }
}
#endif
