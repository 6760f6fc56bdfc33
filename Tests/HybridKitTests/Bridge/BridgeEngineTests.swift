import Foundation
import HybridKitTesting
import HybridTestSupport
import Testing

@testable import HybridKit

struct Point: Codable, Sendable, Equatable {
    var x: Int
    var y: Int
}

struct Gate: PageContextKey { typealias Value = String }

@EngineActor
@Suite struct BridgeEngineTests {
    let engine = FakeEngine()

    func makeBridge(_ configure: (inout BridgeConfiguration) -> Void = { _ in }) throws -> BridgeEngine {
        var configuration = BridgeConfiguration()
        configure(&configuration)
        let modules = ModuleRegistry([
            BridgeModule("math", access: .origins("https://app.example", allowsSubframes: true)) { module in
                module.method("add") { (p: Point, _) in p.x + p.y }
                module.method("fail") { (_: NoArguments, _) -> Int in throw CocoaError(.fileNoSuchFile) }
                module.method("refuse") { (_: NoArguments, _) -> Int in throw BridgeError.denied("no") }
                module.method("slow") { (_: NoArguments, _) async throws -> Int in
                    try await Task.sleep(for: .seconds(60))
                    return 1
                }
                module.method("slowText") { (text: String, _) async throws -> Int in
                    try await Task.sleep(for: .seconds(60))
                    return text.count
                }
                module.method("quick", timeout: .milliseconds(50)) { (_: NoArguments, _) async throws -> Int in
                    try await Task.sleep(for: .seconds(60))
                    return 1
                }
                module.method("gate") { (_: NoArguments, call) in call.page[Gate.self] ?? "none" }
                module.forward("plus", to: "math", method: "add")
            },
            BridgeModule("work", access: .anyPage, execution: .background) { module in
                module.method("square") { (n: Int, _) async in n * n }
            },
        ])
        return try BridgeEngine(engine: engine, modules: modules, configuration: configuration)
    }

    private func result(id: Int) throws -> [String: Any]? {
        try engine.deliveredMessages().first { $0["k"] as? String == "r" && $0["id"] as? Int == id }
    }

    private func errorCode(id: Int) throws -> String? {
        ((try result(id: id))?["e"] as? [String: Any])?["code"] as? String
    }

    @Test func installsRuntimeAndHandlers() throws {
        let bridge = try makeBridge()
        #expect(engine.userScripts.count == 1)
        #expect(engine.userScripts[0].allFrames && engine.userScripts[0].injectionTime == .documentStart)
        #expect(engine.userScripts[0].source.contains("window.hybrid"))
        #expect(engine.handlers["hybrid"]?.replies == false)
        #expect(engine.handlers["hybridReply"]?.replies == true)
        _ = bridge
    }

    @Test func answersAPostInOneEvaluation() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        let texts = [
            PageMessage.hello(), PageMessage.call("math", "add", id: 1, args: #"{"x":2,"y":3}"#),
            PageMessage.call("math", "plus", id: 2, args: #"{"x":4,"y":5}"#),
        ].compactMap { body -> String? in if case .string(let text) = body { text } else { nil } }
        engine.post(.string(texts.joined(separator: "\n")))
        // Answered before the handler returned: no extra turn of the loop for synchronous methods.
        #expect(engine.evaluations.count == 1)
        let messages = try engine.deliveredMessages()
        #expect(messages.map { $0["k"] as? String } == ["ready", "r", "r"])
        #expect(try result(id: 1)?["r"] as? Int == 5)
        #expect(try result(id: 2)?["r"] as? Int == 9)
        #expect((messages[0]["modules"] as? [String: [String]])?["math"]?.contains("add") == true)
    }

    @Test func eventsEmittedTogetherLeaveTogether() async throws {
        let bridge = try makeBridge()
        for n in 0..<3 { try bridge.emit("tick", ["n": n]) }
        #expect(await waitUntil { !engine.evaluations.isEmpty })
        await settle()
        #expect(engine.evaluations.count == 1)
        #expect(try engine.deliveredMessages().map { $0["k"] as? String } == ["ev", "ev", "ev"])
    }

    @Test func aBatchedPostAnswersEachCallInOneEvaluation() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        let calls = (1...50).map { id -> String in
            guard case .string(let text) = PageMessage.call("math", "add", id: id, args: #"{"x":\#(id),"y":1}"#) else {
                return ""
            }
            return text
        }
        engine.post(.string(calls.joined(separator: "\n")))
        #expect(try await waitUntil { try result(id: 50) != nil })
        await settle()
        #expect(engine.evaluations.count == 1)
        #expect(try (1...50).allSatisfy { try result(id: $0)?["r"] as? Int == $0 + 1 })
    }

    @Test func everyFailureIsTyped() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        engine.post(PageMessage.call("nope", "x", id: 1))
        engine.post(PageMessage.call("math", "nope", id: 2))
        engine.post(PageMessage.call("math", "add", id: 3, args: #"{"x":"two"}"#))
        engine.post(PageMessage.call("math", "fail", id: 4))
        engine.post(PageMessage.call("math", "refuse", id: 5))
        engine.post(PageMessage.call("math", "add", id: 6, origin: "https://evil.example"))
        engine.post(PageMessage.call("math", "quick", id: 7))
        engine.post(PageMessage.call("math", "add", id: 8, args: String(repeating: "[", count: 10_000)))
        #expect(try await waitUntil { try errorCode(id: 7) != nil })
        #expect(try errorCode(id: 1) == "unknown_module")
        #expect(try errorCode(id: 2) == "unknown_method")
        #expect(try errorCode(id: 3) == "bad_arguments")
        #expect(try errorCode(id: 4) == "internal")
        // Internal details (here a file error) stay native.
        #expect((try result(id: 4)?["e"] as? [String: Any])?["message"] as? String == "the native method failed")
        #expect(try errorCode(id: 5) == "denied")
        #expect(try errorCode(id: 6) == "denied")
        #expect(try errorCode(id: 7) == "timeout")
        #expect(try errorCode(id: 8) == "bad_message")
    }

    /// A refused call is a warning the host sees, with what to change, once per call, origin and reason.
    @Test func aRefusedCallIsAWarningOnce() async throws {
        let logs = LogCapture.installed()
        logs.reset()
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        for id in 1...3 { engine.post(PageMessage.call("math", "add", id: id, origin: "https://refused.example")) }
        engine.post(PageMessage.call("nope", "x", id: 4))
        #expect(try await waitUntil { try errorCode(id: 4) != nil })
        let denied =
            "bridge call refused: origin https://refused.example may not call module 'math'; if this page should call "
            + "it, name its origin in the module's access (BridgeModule(_:access:)); a page from a package has its "
            + "custom-scheme origin (hybrid://…), not the site's https one: name the site (access: .site)"
        #expect(logs.logged("hybrid.bridge", denied))
        #expect(logs.count("hybrid.bridge", denied) == 1, "said once, not per retry")
        let unknown =
            "bridge call refused: no native module named 'nope'; register the module and method natively, or "
            + "correct the name the page uses"
        #expect(logs.logged("hybrid.bridge", unknown), "\(logs.messages("hybrid.bridge"))")
    }

    @Test func hostileBodiesGetErrorsNotCrashes() async throws {
        let bridge = try makeBridge()
        engine.post(.other(json: "{\"module\":\"math\"}"))
        engine.post(.other(json: nil))
        engine.post(.string(String(repeating: "x", count: 50 << 20)))
        engine.post(.string("H1 call 1 0123456789abcdef main https://app.example math add\n\"\\ud800\""))
        #expect(await waitUntil { (try? engine.deliveredMessages().count) ?? 0 >= 4 })
        let kinds = try engine.deliveredMessages().map { $0["k"] as? String }
        #expect(kinds.filter { $0 == "err" }.count == 3)
        #expect(try errorCode(id: 1) == "bad_arguments")
        #expect(await bridge.stats.refused == 3)
    }

    @Test func backgroundMethodsRunOffTheEngineThread() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        engine.post(PageMessage.call("work", "square", id: 1, args: "12"))
        #expect(try await waitUntil { try result(id: 1) != nil })
        #expect(try result(id: 1)?["r"] as? Int == 144)
    }

    @Test func navigationFailsPendingCallsExactlyOnce() async throws {
        let bridge = try makeBridge()
        engine.post(PageMessage.call("math", "slow", id: 1))
        engine.post(PageMessage.call("math", "slow", id: 2))
        #expect(await bridge.pendingCallCount == 2)
        bridge.pageDidNavigate()
        #expect(await bridge.pendingCallCount == 0)
        await settle()
        try await Task.sleep(for: .milliseconds(50))
        // Nothing is delivered for the old document, and the cancelled handlers never answer later.
        #expect(try result(id: 1) == nil && result(id: 2) == nil)
        #expect(await bridge.stats.abandoned == 2)
        #expect(await bridge.stats.succeeded + bridge.stats.failed == 0)
    }

    @Test func subframeCallsAnswerThroughTheirReply() async throws {
        let bridge = try makeBridge()
        let reply = RecordingReply()
        engine.post(
            PageMessage.call("math", "add", id: 3, args: #"{"x":1,"y":1}"#, frame: "sub"), to: "hybridReply",
            reply: reply)
        #expect(try reply.messages().first?["r"] as? Int == 2)
        let pending = RecordingReply()
        engine.post(PageMessage.call("math", "slow", id: 4, frame: "sub"), to: "hybridReply", reply: pending)
        bridge.close()
        let failure = try pending.messages().first?["e"] as? [String: Any]
        #expect(failure?["code"] as? String == "closed")
        #expect(engine.handlers.isEmpty)
    }

    @Test func mainFrameMessagesMustComeFromTheShownOrigin() async throws {
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        engine.currentURL = URL(string: "https://app.example:8443/page")
        engine.post(
            PageMessage.call("math", "add", id: 1, args: #"{"x":1,"y":1}"#, origin: "https://app.example"),
            unverified: true)
        #expect(try await waitUntil { try errorCode(id: 1) != nil })
        #expect(try errorCode(id: 1) == "denied")
    }

    @Test func engineStampedFramesOverrideWhatThePageClaims() async throws {
        engine.verifiesFrames = true
        let bridge = try makeBridge()
        defer { withExtendedLifetime(bridge) {} }
        // Unstamped: posted around the runtime.
        engine.post(PageMessage.call("math", "add", id: 1, args: #"{"x":1,"y":1}"#), unverified: true)
        // Stamped as a subframe of another origin, though it claims to be the main frame of app.example.
        let reply = RecordingReply()
        engine.post(
            PageMessage.call("math", "add", id: 2, args: #"{"x":1,"y":1}"#), to: "hybridReply", reply: reply,
            frame: FrameInfo(
                url: URL(string: "https://ads.example/frame"), securityOrigin: "https://ads.example", isMainFrame: false
            ))
        // Stamped as the main frame of the right origin.
        engine.post(
            PageMessage.call("math", "gate", id: 3),
            frame: FrameInfo(
                url: URL(string: "https://app.example/x"), securityOrigin: "https://app.example", isMainFrame: true))
        #expect(try await waitUntil { try result(id: 3) != nil })
        // Refused before it is even read: the page hears it as an 'error' event, not as an answer to id 1.
        #expect(try result(id: 1) == nil)
        let unattributed = try engine.deliveredMessages().first { $0["k"] as? String == "err" }
        #expect((unattributed?["e"] as? [String: Any])?["code"] as? String == "denied")
        let failure = try reply.messages().first?["e"] as? [String: Any]
        #expect(failure?["code"] as? String == "denied")
        #expect((failure?["message"] as? String)?.contains("https://ads.example") == true)
        #expect(try result(id: 3)?["ok"] as? Bool == true)
    }

    @Test func callsWaitForReady() async throws {
        let bridge = try makeBridge { $0.startsReady = false }
        engine.post(PageMessage.hello())
        await settle()
        #expect(try engine.deliveredMessages().isEmpty)
        bridge.markReady()
        #expect(await waitUntil { !((try? engine.deliveredMessages()) ?? []).isEmpty })
        #expect(try engine.deliveredMessages().first?["k"] as? String == "ready")
    }

    @Test func modulesShareThePageContext() async throws {
        let bridge = try makeBridge()
        bridge.page[Gate.self] = "open"
        engine.post(PageMessage.call("math", "gate", id: 1))
        #expect(try await waitUntil { try result(id: 1) != nil })
        #expect(try result(id: 1)?["r"] as? String == "open")
    }

    private func jsCalls() -> [[String: Any]] {
        ((try? engine.deliveredMessages()) ?? []).filter { $0["k"] as? String == "jscall" }
    }

    private func jsReply(id: Int, token: String = PageMessage.token, frame: String = "main", answer: String)
        -> ScriptMessage.Body
    {
        .string("H1 jsreply \(id) \(token) \(frame) https://app.example - -\n{\"ok\":true,\"r\":\"\(answer)\"}")
    }

    @Test func callsJavaScriptHandlers() async throws {
        let bridge = try makeBridge()
        engine.post(PageMessage.hello())
        async let answer = bridge.callJavaScript("greet", ["name": "Ada"], as: String.self)
        #expect(await waitUntil { !jsCalls().isEmpty })
        let call = try #require(jsCalls().first)
        #expect(call["n"] as? String == "greet")
        #expect(call["p"] as? String == PageMessage.token, "addressed to the main document that said hello")
        let id = try #require(call["id"] as? Int)
        engine.post(jsReply(id: id, answer: "hi Ada"))
        #expect(try await answer == "hi Ada")
    }

    @Test func callsIntoThePageWaitForTheMainDocumentsHello() async throws {
        let bridge = try makeBridge()
        async let answer = bridge.callJavaScript("greet", "early", as: String.self)
        await settle()
        #expect(jsCalls().isEmpty, "no document to address yet")
        // A subframe's hello does not make it the addressee.
        let other = "fedcba9876543210"
        engine.post(PageMessage.hello(frame: "sub", token: other), to: "hybridReply", reply: RecordingReply())
        await settle()
        #expect(jsCalls().isEmpty)
        engine.post(PageMessage.hello())
        #expect(await waitUntil { !jsCalls().isEmpty })
        let call = try #require(jsCalls().first)
        #expect(call["p"] as? String == PageMessage.token)
        engine.post(jsReply(id: try #require(call["id"] as? Int), answer: "late"))
        #expect(try await answer == "late")
    }

    /// A reply counts only from the document called, with the id it was given: ids are random, and a
    /// subframe (or another document) that has one, or guesses one, is refused.
    @Test func onlyTheCalledDocumentCanAnswer() async throws {
        engine.verifiesFrames = true
        let bridge = try makeBridge()
        let main = FrameInfo(
            url: URL(string: "https://app.example/"), securityOrigin: "https://app.example", isMainFrame: true)
        let sandboxed = FrameInfo(
            url: URL(string: "https://app.example/frame"), securityOrigin: "", isMainFrame: false)
        engine.post(PageMessage.hello(), frame: main)
        async let first = bridge.callJavaScript("greet", "one", as: String.self)
        async let second = bridge.callJavaScript("greet", "two", as: String.self)
        #expect(await waitUntil { jsCalls().count == 2 })
        let ids = jsCalls().compactMap { $0["id"] as? Int }
        #expect(ids.count == 2 && Set(ids).count == 2)
        #expect(ids.allSatisfy { $0 > 1 << 20 }, "ids are not a counter: \(ids)")
        // The right id and token, but from a subframe (on either handler).
        let subReply = RecordingReply()
        engine.post(jsReply(id: ids[0], answer: "forged"), to: "hybridReply", reply: subReply, frame: sandboxed)
        engine.post(jsReply(id: ids[0], frame: "main", answer: "forged"), frame: sandboxed)
        // The main frame, but another document's token; and a guessed id.
        engine.post(jsReply(id: ids[0], token: "fedcba9876543210", answer: "forged"), frame: main)
        engine.post(jsReply(id: 1, answer: "forged"), frame: main)
        await settle()
        #expect((try subReply.messages().first?["e"] as? [String: Any])?["code"] as? String == "denied")
        let refusals = try engine.deliveredMessages().filter { $0["k"] as? String == "err" }
        #expect(refusals.count == 3)
        // Each call answers with its own argument, the later call first (`async let` starts them in either order).
        for call in jsCalls().reversed() {
            let id = try #require(call["id"] as? Int)
            engine.post(jsReply(id: id, answer: try #require(call["d"] as? String)), frame: main)
        }
        let answers = try await [first, second]
        #expect(answers == ["one", "two"])
    }

    /// Main-frame batches are a string the runtime parses, so a `__proto__` key stays a key there as it does
    /// in subframes; and only holders of the delivery key (native) can feed the runtime.
    @Test func batchesReachTheMainFrameAsAuthenticatedJSONText() async throws {
        let bridge = try makeBridge()
        try bridge.emit("data", ["__proto__": ["polluted": true]])
        #expect(await waitUntil { !engine.evaluations.isEmpty })
        let script = try #require(engine.evaluations.last)
        #expect(script.hasPrefix("__hybridReceive([\""))
        let events = try engine.deliveredMessages().filter { $0["k"] as? String == "ev" }
        #expect(((events.first?["d"] as? [String: Any])?["__proto__"] as? [String: Bool]) == ["polluted": true])
        let key = String(script.dropFirst("__hybridReceive([\"".count).prefix(32))
        #expect(engine.userScripts[0].source.contains(key), "the runtime knows the key")
        #expect(script.contains(#","[{\"k\":"#), "the batch travels as JSON text")
    }

    @Test func largeBatchesAreAPageFunctionsArgumentsSmallOnesAnEvaluation() async throws {
        let bridge = try makeBridge { $0.functionCallThreshold = 4096 }
        try bridge.emit("small", "x")
        #expect(await waitUntil { engine.evaluations.count == 1 })
        #expect(engine.functionCalls.isEmpty)
        let large = String(repeating: "\"</script>\u{2028}", count: 1000)
        try bridge.emit("large", large)
        #expect(await waitUntil { engine.functionCalls.count == 1 })
        #expect(engine.evaluations.count == 1, "the large batch is not evaluated as well")
        let call = try #require(engine.functionCalls.first)
        #expect(call.body == "__hybridReceive([k, b])")
        guard case .string(let key)? = call.arguments["k"], case .string(let batch)? = call.arguments["b"] else {
            Issue.record("the call's arguments are not the delivery key and the batch: \(call.arguments)")
            return
        }
        #expect(engine.userScripts[0].source.contains(key), "the runtime knows the key")
        // The batch is the JSON text itself, unescaped: the engine hands it over as a string value.
        #expect(batch.hasPrefix(#"[{"k":"ev","e":"large","d":"\""#))
        let events = try engine.deliveredMessages().filter { $0["k"] as? String == "ev" }
        #expect(events.compactMap { $0["d"] as? String } == [large, "x"])
    }

    @Test func javaScriptStringsEscapeWhatWouldEndOrChangeTheLiteral() throws {
        let text = "a\"b\\c\nd\u{0}e\u{2028}f\u{2029}g\u{1F600}h\u{E2}"
        let literal = OutboundMessage.javaScriptString(text)
        #expect(literal == #""a\"b\\c\u000ad\u0000e\u2028f\u2029g\#u{1F600}h\#u{E2}""#)
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
        #expect(decoded == [text])
    }

    /// The bridge's counters, read on its executor (the engine's actor here) without yielding to it.
    private func stats(_ bridge: BridgeEngine) -> BridgeStatistics {
        bridge.stats
    }

    /// A post of 50,000 calls is not handled in one go, which would hold the engine's loop (shared by every
    /// web view of the app) for as long as it takes: a slice is handled at once, the rest in later turns, and
    /// every call is answered, in order, each slice in one evaluation.
    @Test func aFloodIsHandledOverSeveralTurns() async throws {
        let bridge = try makeBridge()
        let count = 50_000
        let batch = (1...count).map { id in
            "H1 call \(id) \(PageMessage.token) main https://app.example math add\n{\"x\":\(id),\"y\":1}"
        }
        engine.post(.string(batch.joined(separator: "\n")))
        let handledAtOnce = stats(bridge).calls
        #expect(handledAtOnce > 0 && handledAtOnce < count, "handled \(handledAtOnce) of \(count) in one turn")
        #expect(await waitUntil { stats(bridge).calls == count })
        let evaluations = stats(bridge).evaluations
        #expect(evaluations > 1, "answered over several turns")
        let answers = try engine.deliveredMessages().filter { $0["k"] as? String == "r" }
        #expect(answers.count == count)
        #expect(answers.compactMap { $0["id"] as? Int } == Array(1...count), "in order")
        #expect(answers.last?["r"] as? Int == count + 1)
    }

    /// Calls past `maxPendingCalls` are refused with `denied` while the earlier ones are still running.
    @Test func callsPastThePendingCapAreRefusedUntilOthersAnswer() async throws {
        let bridge = try makeBridge { $0.limits.maxPendingCalls = 3 }
        defer { withExtendedLifetime(bridge) {} }
        for id in 1...5 { engine.post(PageMessage.call("math", "slow", id: id)) }
        #expect(try await waitUntil { try errorCode(id: 5) != nil })
        #expect(try errorCode(id: 4) == "denied")
        #expect(try errorCode(id: 5) == "denied")
        #expect(try (1...3).allSatisfy { try result(id: $0) == nil }, "the first three are still running")
        engine.post(PageMessage.call("math", "add", id: 6, args: #"{"x":1,"y":2}"#))
        #expect(try await waitUntil { try result(id: 6) != nil })
        #expect(try errorCode(id: 6) == "denied", "a synchronous call counts against the cap too")
        #expect(await bridge.pendingCallCount == 3)
    }

    /// Calls that answer later hold their arguments until they end: past ``BridgeLimits/maxPendingArgumentBytes``
    /// in all, a call is refused with `denied` (one warning), and the bytes come back when the calls end, however
    /// they end. Without it a page pinned memory without bound: many calls of a slow method, each with a large
    /// argument (the call count alone allowed 10,000 of 16 MB).
    @Test func argumentsHeldByWaitingCallsAreBoundedInBytes() async throws {
        let logs = LogCapture.installed()
        logs.reset()
        let bridge = try makeBridge { $0.limits.maxPendingArgumentBytes = 1 << 20 }
        defer { withExtendedLifetime(bridge) {} }
        let big = "\"" + String(repeating: "a", count: 300_000) + "\""
        for id in 1...5 { engine.post(PageMessage.call("math", "slowText", id: id, args: big)) }
        #expect(try await waitUntil { try errorCode(id: 5) != nil })
        #expect(try errorCode(id: 4) == "denied" && errorCode(id: 5) == "denied")
        #expect(try (1...3).allSatisfy { try result(id: $0) == nil }, "the first three are still running")
        #expect(bridge.argumentBudget.inUse == 3 * 300_002)
        let warnings = logs.messages("hybrid.bridge").filter { $0.contains("BridgeLimits.maxPendingArgumentBytes") }
        #expect(warnings.count == 1, "one warning for two refusals: \(logs.messages("hybrid.bridge"))")
        // A synchronous method answers inline and holds nothing: it still goes.
        engine.post(PageMessage.call("math", "add", id: 6, args: #"{"x":1,"y":2}"#))
        #expect(try await waitUntil { try result(id: 6) != nil })
        #expect(try result(id: 6)?["r"] as? Int == 3)
        bridge.pageDidNavigate()
        #expect(try await waitUntil { bridge.argumentBudget.inUse == 0 }, "cancelled calls gave their bytes back")
    }

    /// A call that waits keeps a copy of its own arguments, not the post they came in: a slice would keep the whole
    /// post (up to 16 MB, a batch of many calls) alive as long as the call.
    @Test func aWaitingCallKeepsItsOwnArgumentsNotItsPost() {
        let post = "H1 call 1 t main o m f\n[1]" + String(repeating: "x", count: 100_000)
        let small = post.dropFirst(23).prefix(3)
        #expect(String(small) == "[1]")
        #expect(Substring(Invocation.ownCopy(of: small.utf8)).base.utf8.count == 3)
        let most = post.dropFirst(23)
        #expect(Substring(Invocation.ownCopy(of: most.utf8)).base.utf8.count == post.utf8.count, "no copy needed")
    }

    @Test func releasedBridgeIsNotKeptAliveByTheEngine() throws {
        weak var weakBridge: BridgeEngine?
        do {
            let bridge = try makeBridge()
            weakBridge = bridge
        }
        #expect(weakBridge == nil)
        // The handler the engine still holds answers that the bridge is gone, instead of crashing.
        let reply = RecordingReply()
        engine.post(PageMessage.hello(frame: "sub"), to: "hybridReply", reply: reply)
        #expect(reply.rejected == ["the bridge is closed"])
    }
}
