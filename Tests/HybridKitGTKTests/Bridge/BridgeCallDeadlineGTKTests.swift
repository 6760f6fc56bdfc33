#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Synchronization
import Testing

/// A synchronous call is answered at the bridge's sync limit even when its method awaits something that
/// ignores cancellation: here a call back into the page, which cannot answer while it is blocked in the
/// call's own prompt (the page's main thread waits; the evaluation carrying the call waits for it).
@Suite(.serialized) struct BridgeCallDeadlineGTKTests {
    /// The page's handler ran (after the prompt was answered) and native got its answer (too late for the call).
    static let lateAnswers = Mutex(0)

    static let module = BridgeModule("deadline", access: .origins("app://demo")) { module in
        // No limit of its own, and a long one on the call into the page: the sync limit must be what ends it.
        module.method("askPage", synchronous: true) { (_: NoArguments, call) async throws -> Int in
            guard let bridge = call.bridge else { throw BridgeError.internalError("the call has no bridge") }
            let answer = try await bridge.callJavaScript("echo", 41, as: Int.self, timeout: .seconds(20))
            lateAnswers.withLock { $0 += 1 }
            return answer + 1
        }
    }

    @Test @GTKActor func aSyncCallWaitingOnThePageIsAnsweredAtTheSyncLimit() async throws {
        var configuration = BridgeConfiguration()
        configuration.limits.syncCallTimeout = .milliseconds(300)
        let page = try TestPage(modules: [Self.module], configuration: configuration)
        defer { page.close() }
        try await page.load("test/blank.html")
        try await page.waitFor("hybrid.isReady")
        #expect(try await page.evaluate("(hybrid.handle('echo', (n) => n), true)", as: Bool.self))
        struct Failure: Decodable {
            let code: String
            let elapsed: Double
        }
        let failure: Failure = try await page.evaluate(
            """
            (() => {
              const started = performance.now();
              try { hybrid.callSync('deadline', 'askPage'); return { code: 'none', elapsed: 0 }; }
              catch (e) { return { code: e.code, elapsed: performance.now() - started }; }
            })()
            """)
        #expect(failure.code == "timeout", "\(failure)")
        // The sync limit (0.3 s), not the call into the page's 20 s: a generous bound that only the limit meets.
        #expect(failure.elapsed >= 250 && failure.elapsed < 5_000, "\(failure.elapsed) ms")
        // Freed, the page answers the call into it; the method's late result goes nowhere, and the page still works.
        try await waitUntil(timeout: .seconds(10)) { Self.lateAnswers.withLock { $0 } == 1 }
        #expect(try await page.settle("hybrid.call('deadline', 'askPage')", as: Int.self) == 42)
    }
}
#endif
