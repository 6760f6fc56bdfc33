import Foundation
import HybridKitTesting
import Synchronization
import Testing

@testable import HybridKit

/// A call is answered at its limit (the method's own, else the bridge's) whatever its method's task does: a
/// method stuck in an await that ignores cancellation (a `callJavaScript` into a page blocked in its prompt, a
/// continuation nobody resumes) must not hold the page, least of all its main thread in a synchronous call.
@EngineActor
@Suite struct BridgeCallDeadlineTests {
    let engine = FakeEngine()

    /// An await that ignores cancellation: it ends only when the test releases it (each test does, so no
    /// method outlives its test). Records what the method saw.
    final class Blocker: Sendable {
        private let state = Mutex<(released: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
        private let cancelled = Atomic<Bool>(false)
        private let returned = Atomic<Int>(0)
        /// The method's task was cancelled while it waited (the bridge gave up on it).
        var sawCancellation: Bool { cancelled.load(ordering: .sequentiallyConsistent) }
        /// Methods that got past the blocker and returned their (late) result.
        var finished: Int { returned.load(ordering: .sequentiallyConsistent) }

        func wait() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let released = state.withLock { state in
                        if !state.released { state.waiting.append(continuation) }
                        return state.released
                    }
                    if released { continuation.resume() }
                }
            } onCancel: {
                cancelled.store(true, ordering: .sequentiallyConsistent)
            }
            returned.add(1, ordering: .sequentiallyConsistent)
        }

        func release() {
            let waiting = state.withLock { state in
                state.released = true
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    let blocker = Blocker()

    /// The limit under test: far below the generous bound the tests allow for an answer (2.5 s), which is far
    /// below how long the methods block (until released, after the bound).
    static let limit = Duration.milliseconds(200)
    static let answeredWithin = Duration.milliseconds(2_500)

    func makeBridge(limits: BridgeLimits) throws -> BridgeEngine {
        engine.verifiesFrames = true
        let blocker = blocker
        func stuck(_ module: inout BridgeModuleBuilder) {
            // No limit of its own: the bridge's applies.
            module.method("stuck", synchronous: true) { (_: NoArguments, _) async -> Int in
                await blocker.wait()
                return 1
            }
            module.method("stuckOwnLimit", timeout: Self.limit, synchronous: true) { (_: NoArguments, _) async -> Int in
                await blocker.wait()
                return 1
            }
        }
        let modules = ModuleRegistry([
            BridgeModule("here", access: .origins("https://app.example")) { module in stuck(&module) },
            BridgeModule("away", access: .origins("https://app.example"), execution: .background) { module in
                stuck(&module)
            },
        ])
        var configuration = BridgeConfiguration()
        configuration.limits = limits
        return try BridgeEngine(engine: engine, modules: modules, configuration: configuration)
    }

    private func answers(id: Int) throws -> [[String: Any]] {
        try engine.deliveredMessages().filter { $0["k"] as? String == "r" && $0["id"] as? Int == id }
    }

    private func errorCode(id: Int) throws -> String? {
        (try answers(id: id).first?["e"] as? [String: Any])?["code"] as? String
    }

    /// Lets the released methods return and the bridge see their late results.
    private func releaseAndLetLateResultsArrive(count: Int) async {
        blocker.release()
        #expect(await waitUntil(timeout: .seconds(10)) { blocker.finished == count })
        // The late result travels from the method's task to the bridge's executor: give it every chance to be
        // (wrongly) delivered before the tests count the answers.
        try? await Task.sleep(for: .milliseconds(100))
        await settle()
    }

    // MARK: Asynchronous calls

    @Test(arguments: ["here", "away"])
    func anAsyncCallIsAnsweredAtTheBridgesLimit(module: String) async throws {
        let bridge = try makeBridge(limits: BridgeLimits(callTimeout: Self.limit))
        let started = ContinuousClock.now
        engine.post(PageMessage.call(module, "stuck", id: 1))
        let answered = try await waitUntil(timeout: Self.answeredWithin) { try errorCode(id: 1) != nil }
        let elapsed = ContinuousClock.now - started
        await releaseAndLetLateResultsArrive(count: 1)
        #expect(answered, "answered by the limit (\(Self.limit)), not when the method's await ends")
        #expect(try errorCode(id: 1) == "timeout")
        #expect(elapsed >= Self.limit)
        // The method was told to stop at the deadline; its late result was dropped: one answer, a failure.
        #expect(blocker.sawCancellation)
        #expect(try answers(id: 1).count == 1)
        let stats = bridge.stats
        #expect(stats.failed == 1 && stats.succeeded == 0)
    }

    @Test(arguments: ["here", "away"])
    func aMethodsOwnLimitAppliesWhenTheBridgeHasNone(module: String) async throws {
        let bridge = try makeBridge(limits: BridgeLimits(callTimeout: nil))
        defer { withExtendedLifetime(bridge) {} }
        engine.post(PageMessage.call(module, "stuckOwnLimit", id: 2))
        let answered = try await waitUntil(timeout: Self.answeredWithin) { try errorCode(id: 2) != nil }
        await releaseAndLetLateResultsArrive(count: 1)
        #expect(answered)
        #expect(try errorCode(id: 2) == "timeout")
        #expect(try answers(id: 2).count == 1)
    }

    // MARK: Synchronous calls

    /// The runtime's key, read from the script the bridge injected.
    private func syncKey() throws -> String {
        let source = try #require(engine.userScripts.first?.source)
        let range = try #require(source.range(of: #""syncKey":""#))
        return String(source[range.upperBound...].prefix(32))
    }

    private func callSync(_ bridge: BridgeEngine, _ module: String, _ method: String) async throws
        -> BridgeSyncAndStateTests.DialogAnswers
    {
        let text =
            "H1sync \(try syncKey())\nH1 call 1 \(PageMessage.token) main https://app.example \(module) \(method)\nnull"
        let answers = BridgeSyncAndStateTests.DialogAnswers()
        let dialog = ScriptDialog(kind: .prompt(defaultText: ""), message: text, frame: BridgeSyncAndStateTests.app)
        #expect(await bridge.answerSynchronousCall(dialog, reply: answers))
        return answers
    }

    @Test(arguments: ["here", "away"])
    func aSyncCallIsAnsweredAtTheSyncLimitNotTheCallLimit(module: String) async throws {
        // The page's main thread waits: the sync limit applies, not the (much longer) one for async calls.
        let bridge = try makeBridge(limits: BridgeLimits(callTimeout: .seconds(60), syncCallTimeout: Self.limit))
        let started = ContinuousClock.now
        let answers = try await callSync(bridge, module, "stuck")
        let answered = await waitUntil(timeout: Self.answeredWithin) { answers.answers.withLock { !$0.isEmpty } }
        let elapsed = ContinuousClock.now - started
        await releaseAndLetLateResultsArrive(count: 1)
        #expect(answered, "the page's main thread is released by syncCallTimeout (\(Self.limit))")
        #expect(try answers.code() == "timeout")
        #expect(elapsed >= Self.limit)
        #expect(blocker.sawCancellation)
        // One answer to the prompt: the late result is dropped.
        #expect(answers.answers.withLock { $0.count } == 1)
        let stats = bridge.stats
        #expect(stats.failed == 1 && stats.succeeded == 0)
    }

    @Test(arguments: ["here", "away"])
    func aSyncMethodsOwnLimitOverridesTheSyncLimit(module: String) async throws {
        let bridge = try makeBridge(limits: BridgeLimits(callTimeout: nil, syncCallTimeout: .seconds(60)))
        let answers = try await callSync(bridge, module, "stuckOwnLimit")
        let answered = await waitUntil(timeout: Self.answeredWithin) { answers.answers.withLock { !$0.isEmpty } }
        await releaseAndLetLateResultsArrive(count: 1)
        #expect(answered)
        #expect(try answers.code() == "timeout")
        #expect(answers.answers.withLock { $0.count } == 1)
    }
}
