import Foundation
import HybridKit
import HybridKitTesting
import Testing

/// The conformance suite meeting an engine without a capability: the case fails, naming the capability, so an
/// adapter either has it or declares the case a known issue; it never passes having checked nothing. Engine-free
/// (HybridKitTesting's FakeEngine, which vouches for no frames), so it runs wherever the suite does.
@Suite struct ConformanceCapabilityTests {
    struct FakeHost: EngineConformanceHost {
        struct Factory: WebEngineFactory {
            @EngineActor func makeEngine() throws(EngineError) -> any WebEngine { FakeEngine() }
        }

        func makeFactory(settings: WebViewSettings) throws -> any WebEngineFactory { Factory() }

        func serveHTTP(directory: URL) async throws -> ConformanceHTTPOrigin {
            throw ConformanceFailure(message: "no HTTP origin in this host")
        }
    }

    @Test(arguments: [
        "frames.messagesCarryTheSecurityOriginTheEngineEnforces",
        "frames.synchronousCallsCarryTheFrameTheEngineNames",
    ])
    func anEngineThatVouchesForNoFramesFailsTheFrameCases(_ name: String) async throws {
        let check = try #require(EngineConformance.named(name))
        do {
            try await check.run(on: FakeHost())
            Issue.record("\(name) passed against an engine that vouches for no frames")
        } catch {
            #expect(error.missingCapability == "verifiesMessageFrames")
            #expect(error.caseName == name)
            #expect(error.message.contains("known issue"))
        }
    }
}
