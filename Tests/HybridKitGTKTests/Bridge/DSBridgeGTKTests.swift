#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Synchronization
import Testing

/// Pages written for DSBridge work unchanged against HybridKit modules: synchronous and asynchronous `call`,
/// namespaces (`syn.tag`, `deep.space.echo`), `hasNativeMethod` with its type, `register`/`registerAsyn` (plain
/// and namespaced) called by native, `disableJavascriptDialogBlock`, and the wire DSBridge's own script uses
/// (`prompt('_dsbridge=' + method, …)`).
@Suite(.serialized) struct DSBridgeGTKTests {
    static let asyncArguments = Mutex<[String]>([])

    /// The methods DSBridge's demo calls; calls without a namespace go to the `dsbridge` module.
    static let modules = [
        BridgeModule("dsbridge", access: .origins("app://demo")) { module in
            module.method("testSyn", synchronous: true) { (text: String, _) in "\(text)［syn call］" }
            module.method("testNoArgSyn", synchronous: true) { (_: JSONValue, _) in "testNoArgSyn called [ syn call]" }
            module.method("testAsyn") { (text: String, _) async throws in
                asyncArguments.withLock { $0.append(text) }
                try await Task.sleep(for: .milliseconds(5))
                return "\(text) [ asyn call]"
            }
            module.method("testNoArgAsyn") { (_: JSONValue, _) async in "testNoArgAsyn called [ asyn call]" }
            // DSBridge's progress callback: one call, answered once per element.
            module.stream("callProgress") { (_: JSONValue, _) in
                AsyncStream<Int> { continuation in
                    for value in stride(from: 3, through: 0, by: -1) { continuation.yield(value) }
                    continuation.finish()
                }
            }
        },
        BridgeModule("syn", access: .origins("app://demo")) { module in
            module.method("tag", synchronous: true) { (text: String, _) in "syn.tag: \(text)" }
        },
        BridgeModule("deep.space", access: .origins("app://demo")) { module in
            module.method("echo", synchronous: true) { (value: JSONValue, _) in value }
        },
    ]

    @Test @GTKActor func aDSBridgeDemoPageRunsUnchanged() async throws {
        Self.asyncArguments.withLock { $0.removeAll() }
        let page = try TestPage(modules: Self.modules)
        defer { page.close() }
        try await page.load("test/dsbridge-demo.html")
        try await page.waitFor(
            "window.log.some((l) => l.startsWith('testAsyn ')) && window.log.some((l) => l.startsWith('library testAsyn '))"
                + " && window.log.some((l) => l.startsWith('testNoArgAsyn ')) && window.log.includes('progress 0')",
            timeout: .seconds(10))
        let log: [String] = try await page.evaluate("window.log")
        #expect(!log.contains { $0.hasPrefix("window.onerror") }, "\(log)")
        // Synchronous calls answered in the head script, in order, before anything asynchronous.
        #expect(
            Array(log.prefix(5)) == [
                "testSyn hello［syn call］", "testNoArgSyn testNoArgSyn called [ syn call]",
                "syn.tag syn.tag: namespaced",
                #"deep.space.echo {"a":[1,2]}"#, #"missing """#,
            ], "\(log)")
        #expect(log.contains("testAsyn hello [ asyn call]"), "\(log)")
        #expect(log.contains("testNoArgAsyn testNoArgAsyn called [ asyn call]"), "\(log)")
        #expect(log.filter { $0.hasPrefix("progress ") } == ["progress 3", "progress 2", "progress 1", "progress 0"])
        #expect(log.contains("hasNativeMethod testSyn true"), "\(log)")
        #expect(log.contains("hasNativeMethod testSyn syn true"), "\(log)")
        #expect(log.contains("hasNativeMethod testAsyn syn false"), "\(log)")
        #expect(log.contains("hasNativeMethod testAsyn asyn true"), "\(log)")
        #expect(log.contains("hasNativeMethod nope false"), "\(log)")
        // DSBridge's own wire (its script's prompt) works the same.
        #expect(log.contains("library testSyn wire［syn call］"), "\(log)")
        #expect(log.contains("library testAsyn wire [ asyn call]"), "\(log)")
        #expect(Self.asyncArguments.withLock { $0.sorted() } == ["hello", "wire"])
        // Callback stubs are removed once answered, as the library does.
        #expect(
            try await page.evaluate("Object.keys(window).filter((k) => /^dscb\\d+$/.test(k)).length", as: Int.self) == 0
        )

        // Native calls the page's JavaScript methods by DSBridge's names, with an argument list.
        let bridge = page.page.bridge
        #expect(try await bridge.callJavaScript("addValue", [3, 4], as: Int.self) == 7)
        #expect(try await bridge.callJavaScript("append", ["I", "love", "you"], as: String.self) == "I love you")
        #expect(try await bridge.callJavaScript("syn.addValue", [5, 6], as: Int.self) == 11)
        struct Info: Decodable, Equatable { let tag: String; let value: Int }
        #expect(try await bridge.callJavaScript("syn.getInfo", [Int](), as: Info.self) == Info(tag: "syn", value: 8))
        #expect(try await bridge.callJavaScript("asyn.addValue", [5, 6], as: Int.self) == 11)
        #expect(try await bridge.callJavaScript("_hasJavascriptMethod", ["addValue"], as: Bool.self))
        #expect(try await bridge.callJavaScript("_hasJavascriptMethod", ["asyn.addValue"], as: Bool.self))
        #expect(!(try await bridge.callJavaScript("_hasJavascriptMethod", ["nope"], as: Bool.self)))
        await #expect(throws: BridgeError.self) {
            try await bridge.callJavaScript("nope.method", [1], as: JSONValue.self)
        }
    }

    @Test @GTKActor func aFrameWithoutAccessGetsNothingThroughDSBridge() async throws {
        Self.asyncArguments.withLock { $0.removeAll() }
        let page = try TestPage(modules: Self.modules)
        defer { page.close() }
        try await page.load("test/blank.html")
        // The same demo page, in a frame of another origin: every module here is the app's, main frame only.
        _ = try await page.evaluate(
            """
            (() => {
              window.got = null;
              window.addEventListener('message', (event) => { if (event.data && 'dsProbe' in event.data) window.got = event.data.dsProbe; });
              const frame = document.createElement('iframe');
              frame.src = 'app://other/test/dsbridge-demo.html';
              document.body.appendChild(frame);
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.got !== null", timeout: .seconds(10))
        let log: [String] = try await page.evaluate("window.got")
        #expect(!log.contains { $0.hasPrefix("window.onerror") }, "\(log)")
        #expect(log.contains(#"testSyn "#), "\(log)")
        #expect(log.contains(#"syn.tag "#), "\(log)")
        #expect(log.contains("hasNativeMethod testSyn false"), "\(log)")
        #expect(log.contains("library testSyn "), "\(log)")
        #expect(!log.contains { $0.hasPrefix("testAsyn ") || $0.hasPrefix("library testAsyn ") }, "\(log)")
        #expect(Self.asyncArguments.withLock { $0.isEmpty })
    }
}
#endif
