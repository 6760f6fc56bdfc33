#if !canImport(Darwin)  // EngineThread: where the engine's actor is not the main actor
import Foundation
import HybridKit
import HybridKitTesting
import Synchronization
import Testing

/// The engine's actor on Linux: one thread for every engine-isolated job, the check that guards the C boundary,
/// and a container released away from that thread.
@Suite struct EngineActorTests {
    @Test func engineIsolatedJobsRunOnTheEngineThreadOnly() async {
        #expect(!EngineThread.shared.isCurrent, "a test's own task runs elsewhere")
        let onThread = await EngineActor.run { EngineThread.shared.isCurrent }
        #expect(onThread)
        // Background-priority work goes in the lane that yields to painting, on the same thread.
        let background = await Task(priority: .background) { @EngineActor in EngineThread.shared.isCurrent }.value
        #expect(background)
        let detached = await Task.detached { EngineThread.shared.isCurrent }.value
        #expect(!detached)
    }

    /// The check every GLib callback passes through: entering the engine's actor from another thread ends the
    /// process with a message, before any engine is touched.
    @Test func enteringTheEngineActorFromAnotherThreadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            EngineActor.assumeIsolated { _ = EngineThread.shared.isCurrent }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("not on the engine thread"))
    }

    /// A container whose last reference a task drops elsewhere is taken apart on the engine's actor, not on the
    /// releasing thread (where it crashed `hybrid run` when a dispatch source released it).
    @Test func aContainerReleasedOffTheEngineActorIsClosedOnIt() async throws {
        let engine = await EngineActor.run {
            let engine = FakeEngine()
            engine.verifiesFrames = true
            return engine
        }
        let box = try await EngineActor.run {
            ReleaseBox(try HybridContainer(configuration: ContainerConfiguration(), engine: engine))
        }
        await Task.detached {
            #expect(!EngineThread.shared.isCurrent)
            box.release()
        }.value
        var closed = false
        for _ in 0..<200 where !closed {
            closed = await EngineActor.run { engine.closed }
            if !closed { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(closed, "the released container closed its engine")
    }
}

/// Holds a container until a task lets it go, so its last reference drops on that task's thread.
private final class ReleaseBox: Sendable {
    private let container: Mutex<HybridContainer?>
    init(_ container: HybridContainer) { self.container = Mutex(container) }
    func release() { container.withLock { $0 = nil } }
}
#endif
