import Foundation
import HybridKitTesting
import Synchronization
import Testing

@testable import HybridKit

/// Synchronous calls and published state against the fake engine: what reaches native, from whom, and what a
/// hostile page can make of the prompt channel.
@EngineActor
@Suite struct BridgeSyncAndStateTests {
    let engine = FakeEngine()

    /// Answers recorded in order.
    final class DialogAnswers: ScriptDialogReply, Sendable {
        let answers = Mutex<[ScriptDialogAnswer]>([])
        func answer(_ answer: ScriptDialogAnswer) { answers.withLock { $0.append(answer) } }
        /// The one prompt answer, decoded.
        func reply() throws -> [String: Any]? {
            guard case .text(let text?)? = answers.withLock({ $0.first }) else { return nil }
            return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        }
        func code() throws -> String? { (try reply()?["e"] as? [String: Any])?["code"] as? String }
    }

    func makeBridge() throws -> BridgeEngine {
        engine.verifiesFrames = true
        let modules = ModuleRegistry([
            BridgeModule("device", access: .origins("https://app.example", allowsSubframes: true)) { module in
                module.method("model", synchronous: true) { (_: NoArguments, _) in "HK-1" }
                module.method("plain") { (_: NoArguments, _) in "async only" }
                module.method("slow", timeout: .milliseconds(50), synchronous: true) {
                    (_: NoArguments, _) async throws in
                    try await Task.sleep(for: .seconds(60))
                    return "never"
                }
            },
            BridgeModule("account", access: .origins("https://app.example")) { module in
                module.method("id", synchronous: true) { (_: NoArguments, _) in 7 }
            },
            BridgeModule("open", access: .anyPage) { module in
                module.method("ping", synchronous: true) { (_: NoArguments, _) in "pong" }
            },
            BridgeModule("judged", access: BridgeAccess(origins: .matching { $0.hasSuffix(".example") })) { _ in },
            BridgeModule("feed", access: .anyPage) { module in
                module.method("one") { (_: NoArguments, _) in 1 }
                module.stream("three") { (_: NoArguments, _) in
                    AsyncStream<Int> { continuation in
                        for value in 1...3 { continuation.yield(value) }
                        continuation.finish()
                    }
                }
            },
        ])
        return try BridgeEngine(engine: engine, modules: modules)
    }

    /// The runtime's key, read from the script the bridge injected (a page never sees it).
    func syncKey() throws -> String {
        let source = try #require(engine.userScripts.first?.source)
        let range = try #require(source.range(of: #""syncKey":""#))
        return String(source[range.upperBound...].prefix(32))
    }

    func prompt(_ text: String, frame: FrameInfo?) -> ScriptDialog {
        ScriptDialog(kind: .prompt(defaultText: ""), message: text, frame: frame)
    }

    static let app = FrameInfo(
        url: URL(string: "https://app.example/"), securityOrigin: "https://app.example", isMainFrame: true)
    static let appFrame = FrameInfo(
        url: URL(string: "https://app.example/f"), securityOrigin: "https://app.example", isMainFrame: false)
    static let evil = FrameInfo(
        url: URL(string: "https://evil.example/"), securityOrigin: "https://evil.example", isMainFrame: false)
    static let sandboxed = FrameInfo(url: URL(string: "https://app.example/s"), securityOrigin: "", isMainFrame: false)

    func call(_ module: String, _ method: String, frame: String = "main", origin: String = "https://app.example")
        -> String
    {
        "H1 call 1 \(PageMessage.token) \(frame) \(origin) \(module) \(method)\nnull"
    }

    @Test func onlyTheRuntimesPromptsReachTheBridge() async throws {
        let bridge = try makeBridge()
        let key = try syncKey()
        // The page's own dialogs, and prompts in the format without the key, are the host's.
        for dialog in [
            prompt("Your name?", frame: nil),
            prompt("H1sync \(String(repeating: "0", count: 32))\n\(call("device", "model"))", frame: Self.app),
            prompt("H1sync \(key)", frame: Self.app),
            ScriptDialog(kind: .alert, message: "H1sync \(key)\n\(call("device", "model"))", frame: Self.app),
            ScriptDialog(kind: .confirm, message: "H1sync \(key)\n\(call("device", "model"))", frame: Self.app),
        ] {
            let answers = DialogAnswers()
            #expect(await bridge.answerSynchronousCall(dialog, reply: answers) == false, "\(dialog.message)")
            #expect(answers.answers.withLock { $0.isEmpty })
        }
        let answers = DialogAnswers()
        #expect(
            await bridge.answerSynchronousCall(
                prompt("H1sync \(key)\n\(call("device", "model"))", frame: Self.app), reply: answers))
        #expect(try answers.reply()?["r"] as? String == "HK-1")
    }

    @Test func theEngineNamedFrameDecidesNeverTheText() async throws {
        let bridge = try makeBridge()
        let key = try syncKey()
        func code(_ text: String, frame: FrameInfo?) async throws -> String? {
            let answers = DialogAnswers()
            _ = bridge.answerSynchronousCall(prompt("H1sync \(key)\n\(text)", frame: frame), reply: answers)
            return try answers.code()
        }
        // A frame of another origin claiming the app's origin and the main frame is still the other origin.
        #expect(try await code(call("device", "model"), frame: Self.evil) == "denied")
        #expect(try await code(call("device", "model"), frame: Self.sandboxed) == "denied")
        // No frame from an engine that names frames: refused, as an unstamped post is.
        #expect(try await code(call("open", "ping"), frame: nil) == "denied")
        // A main-frame-only module from a subframe of its own origin.
        #expect(try await code(call("account", "id"), frame: Self.appFrame) == "denied")
        #expect(try await code(call("device", "model"), frame: Self.appFrame) == nil)
        // Only methods declared synchronous; malformed and wrong kinds are bad messages.
        #expect(try await code(call("device", "plain"), frame: Self.app) == "denied")
        #expect(try await code(call("device", "nope"), frame: Self.app) == "unknown_method")
        #expect(
            try await code("H1 hello 0 \(PageMessage.token) main https://app.example - -\n{}", frame: Self.app)
                == "bad_message")
        #expect(try await code("garbage", frame: Self.app) == "bad_message")
        #expect(
            try await code(call("device", "model") + "\n" + call("device", "model"), frame: Self.app) == "bad_message")
        #expect(
            try await code(
                "H1 call 1 \(PageMessage.token) main https://app.example device model\n{\"a\":", frame: Self.app)
                == "bad_message")
        // Past the limit: timeout, and nothing is left pending.
        #expect(try await code(call("device", "slow"), frame: Self.app) == nil)
        let slow = DialogAnswers()
        _ = bridge.answerSynchronousCall(
            prompt("H1sync \(key)\n\(call("device", "slow"))", frame: Self.app), reply: slow)
        #expect(try await waitUntil(timeout: .seconds(5)) { try slow.code() == "timeout" })
    }

    @Test func pendingSynchronousCallsAreAnsweredOnNavigation() async throws {
        let bridge = try makeBridge()
        let key = try syncKey()
        let answers = DialogAnswers()
        _ = bridge.answerSynchronousCall(
            prompt("H1sync \(key)\n\(call("device", "slow"))", frame: Self.app), reply: answers)
        #expect(answers.answers.withLock { $0.isEmpty })
        bridge.pageDidNavigate()
        #expect(try answers.code() == "navigated")
        await settle()
        #expect(answers.answers.withLock { $0.count } == 1)
    }

    @Test func publishedStateCarriesEachModulesAccessToNewDocuments() async throws {
        let bridge = try makeBridge()
        try bridge.publishState("device", ["model": "HK-1"], module: "device")
        try bridge.publishState("user", ["id": 7], module: "account")
        try bridge.publishState("judged", 1, module: "judged")
        // Equal again: nothing changes.
        try bridge.publishState("device", ["model": "HK-1"], module: "device")
        #expect(engine.userScripts.count == 2)
        let state = try #require(engine.userScripts.last?.source)
        #expect(state.contains(#"\"n\":\"device\""#) && state.contains(#"\"n\":\"user\""#))
        #expect(state.contains(#"\"o\":[\"https://app.example\"],\"s\":true"#))
        #expect(state.contains(#"\"o\":[\"https://app.example\"],\"s\":false"#))
        // A predicate cannot be judged by the page: that state waits for the bridge's ready.
        #expect(!state.contains(#"\"n\":\"judged\""#))

        // The ready of each frame holds what that frame may read.
        func readyState(_ frame: FrameInfo, origin: String, main: Bool) throws -> [String: Any]? {
            let reply = RecordingReply()
            engine.post(
                PageMessage.hello(frame: main ? "main" : "sub", origin: origin), to: "hybridReply", reply: reply,
                frame: frame)
            return try reply.messages().first { $0["k"] as? String == "ready" }?["state"] as? [String: Any]
        }
        #expect(
            try readyState(Self.app, origin: "https://app.example", main: true).map { $0.keys.sorted() } == [
                "device", "judged", "user",
            ])
        #expect(
            try readyState(Self.appFrame, origin: "https://app.example", main: false).map { $0.keys.sorted() } == [
                "device"
            ])
        #expect(try readyState(Self.evil, origin: "https://evil.example", main: false).map { $0.keys.sorted() } == [])
        #expect(try readyState(Self.sandboxed, origin: "null", main: false).map { $0.keys.sorted() } == [])

        bridge.removeState("device")
        bridge.removeState("user")
        bridge.removeState("judged")
        #expect(engine.userScripts.count == 1)
        #expect(await bridge.stateNames.isEmpty)
    }

    @Test func accessOverridesNarrowWhatTheDocumentStartSnapshotAllows() async throws {
        let bridge = try makeBridge()
        bridge.modules.setAccessOverrides(["open": AccessOverride(origins: ["https://a.example"])])
        try bridge.publishState("ping", "pong", module: "open")
        let state = try #require(engine.userScripts.last?.source)
        #expect(state.contains(#"\"o\":[\"https://a.example\"]"#))
    }

    /// Access changed after the state was published (a remote configuration narrowing a module, or the module
    /// replaced): new documents start with a copy of the state that follows the new access, not the old one.
    @Test func accessChangedAfterPublishingRebuildsTheDocumentStartSnapshot() async throws {
        let bridge = try makeBridge()
        try bridge.publishState("ping", "pong", module: "open")
        let before = try #require(engine.userScripts.last?.source)
        #expect(!before.contains("https://a.example"))
        bridge.modules.setAccessOverrides(["open": AccessOverride(origins: ["https://a.example"])])
        #expect(
            try await waitUntil(timeout: .seconds(5)) {
                engine.userScripts.last?.source.contains(#"\"o\":[\"https://a.example\"]"#) == true
            }, "the snapshot still allows every origin: \(engine.userScripts.last?.source ?? "none")")
        #expect(engine.userScripts.filter { $0.source.contains("pong") }.count == 1, "the old snapshot was removed")
        // The module withdrawn: no document starts with its state.
        bridge.modules.unregister("open")
        #expect(
            try await waitUntil(timeout: .seconds(5)) { !engine.userScripts.contains { $0.source.contains("pong") } })
    }

    /// The stream chunks delivered to the main frame for call `id`, in order.
    func chunks(id: Int) throws -> [[String: Any]] {
        try engine.deliveredMessages().filter { $0["k"] as? String == "sc" && $0["id"] as? Int == id }
    }

    /// A document's `bye` (its runtime says it on pagehide, when it goes for good) ends its streams at once, and
    /// nothing of another document's: only the document knows its token.
    @Test func aDocumentsByeEndsItsOwnStreamsOnly() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        let other = "fedcba9876543210"
        func post(_ kind: String, _ id: Int, token: String, payload: String = "1") {
            engine.post(.string("H1 \(kind) \(id) \(token) main https://app.example feed three\n\(payload)"))
        }
        func open(_ count: Int) async throws -> Bool {
            for _ in 0..<500 {
                if bridge.openStreamCount == count { return true }
                try await Task.sleep(for: .milliseconds(10))
            }
            return false
        }
        engine.post(PageMessage.hello())
        post("stream", 1, token: PageMessage.token)
        post("stream", 2, token: PageMessage.token)
        post("stream", 3, token: other)
        #expect(try await open(3))
        post("bye", 0, token: other, payload: "null")
        #expect(try await open(2))
        post("bye", 0, token: PageMessage.token, payload: "null")
        #expect(try await open(0))
    }

    @Test func streamsAnswerPullsAndEndOnce() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        func send(
            _ kind: String, _ id: Int, _ module: String = "-", _ method: String = "-",
            origin: String = "https://app.example", payload: String = "256"
        ) {
            engine.post(.string("H1 \(kind) \(id) \(PageMessage.token) main \(origin) \(module) \(method)\n\(payload)"))
        }
        func ended(_ id: Int) throws -> Bool { try chunks(id: id).last?["end"] as? Bool == true }
        engine.post(PageMessage.hello())
        send("stream", 1, "feed", "three", payload: "1")
        send("stream", 2, "feed", "one")
        send("stream", 3, "device", "model", origin: "https://evil.example")
        send("stream", 4, "device", "nope")
        #expect(
            try await waitUntil(timeout: .seconds(5)) { try [2, 3, 4].allSatisfy(ended) && !chunks(id: 1).isEmpty })
        // One element per pull of one, as the page asked; then the end.
        while try !ended(1) {
            let count = try chunks(id: 1).count
            send("pull", 1, payload: "1")
            #expect(try await waitUntil(timeout: .seconds(5)) { try chunks(id: 1).count > count })
        }
        #expect(try chunks(id: 1).flatMap { $0["d"] as? [Int] ?? [] } == [1, 2, 3])
        #expect(try chunks(id: 1).allSatisfy { ($0["d"] as? [Int] ?? []).count <= 1 })
        #expect(try chunks(id: 2).flatMap { $0["d"] as? [Int] ?? [] } == [1])
        #expect(((try chunks(id: 3).last?["e"]) as? [String: Any])?["code"] as? String == "denied")
        #expect(((try chunks(id: 4).last?["e"]) as? [String: Any])?["code"] as? String == "unknown_method")
        #expect(await bridge.openStreamCount == 0)
        // Asking again for an ended stream says it is over; cancelling an unknown one is harmless.
        send("pull", 1)
        send("cancel", 99, payload: "null")
        #expect(
            try await waitUntil(timeout: .seconds(5)) {
                ((try chunks(id: 1).last?["e"]) as? [String: Any])?["code"] as? String == "bad_message"
            })
        #expect(try chunks(id: 99).isEmpty)
    }
}
