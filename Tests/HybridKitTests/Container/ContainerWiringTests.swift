import Foundation
import HybridKit
import HybridKitTesting
import Testing

/// The container's wiring and teardown, against the fake engine.
@Suite(.serialized) @EngineActor struct ContainerWiringTests {
    struct FakeFactory: WebEngineFactory {
        let made: WeakEngines
        /// Like a real engine with its frame stamps; false stands for WebKitGTK without its web-process extension.
        var verifiesFrames = true
        @EngineActor func makeEngine() throws(EngineError) -> any WebEngine {
            let engine = FakeEngine()
            engine.verifiesFrames = verifiesFrames
            made.engines.append(Weak(engine))
            return engine
        }
    }

    final class WeakEngines: @unchecked Sendable { var engines: [Weak<FakeEngine>] = [] }
    final class Weak<T: AnyObject>: @unchecked Sendable {
        weak var value: T?
        init(_ value: T) { self.value = value }
    }

    final class HostHandler: ScriptMessageHandler, @unchecked Sendable {
        var received: [String] = []
        func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
            if case .string(let text) = message.body { received.append(text) }
        }
    }

    final class Session: PageFeatureSession {
        let log: FeatureLog
        init(_ log: FeatureLog) { self.log = log }
        func close() { log.entries.append("close") }
    }

    final class FeatureLog: @unchecked Sendable { var entries: [String] = [] }

    struct RecordingFeature: PageFeature {
        let log: FeatureLog
        func build(_ assembly: inout PageAssembly) throws {
            log.entries.append("build")
            assembly.userScripts.append(UserScript(source: "/* feature */"))
            assembly.modules.append(BridgeModule("feature", access: .anyPage) { _ in })
        }
        func attach(to page: HybridPage, services: PageServices) throws -> (any PageFeatureSession)? {
            log.entries.append("attach \(page.bridge.modules.catalog.keys.sorted())")
            return Session(log)
        }
    }

    @Test func wiresScriptsHandlersAndFeaturesAndTearsThemDown() async throws {
        let made = WeakEngines()
        let log = FeatureLog()
        let host = HostHandler()
        let before = LiveObjects.containers
        var container: HybridContainer? = try HybridContainer(
            configuration: ContainerConfiguration(
                userScripts: [UserScript(source: "/* page */")],
                messageHandlers: [HostMessageHandler(name: "host", handler: host)],
                features: [RecordingFeature(log: log)]),
            factory: FakeFactory(made: made))
        weak var bridge = container?.bridge
        let engine = try #require(made.engines.first?.value)
        #expect(engine.userScripts.map(\.source).suffix(2) == ["/* page */", "/* feature */"])
        #expect(engine.userScripts.first?.source.contains("window.hybrid") == true, "the bridge runtime goes first")
        #expect(Set(engine.handlers.keys) == ["hybrid", "hybridReply", "host"])
        #expect(log.entries == ["build", "attach [\"feature\"]"])
        #expect(LiveObjects.containers == before + 1)

        engine.post(.string("hi"), to: "host")
        #expect(host.received == ["hi"])
        // The engine holds the host's handler through a weak proxy only.
        #expect(engine.handlers["host"]?.handler !== host)

        container?.close()
        #expect(log.entries.last == "close")
        #expect(engine.handlers.isEmpty)
        container = nil
        #expect(bridge == nil)
        #expect(LiveObjects.containers == before)
    }

    @Test func droppingTheContainerFreesItsEngine() async throws {
        let made = WeakEngines()
        // Weak references, not the process-wide LiveObjects counter: GTK container suites run alongside.
        var containers: [() -> HybridContainer?] = []
        for _ in 0..<20 {
            let container = try HybridContainer(
                configuration: ContainerConfiguration(modules: [BridgeModule("m", access: .anyPage) { _ in }]),
                factory: FakeFactory(made: made))
            try container.load(URL(string: "https://app.example/")!)
            containers.append { [weak container] in container }
        }
        await settle()
        #expect(made.engines.count == 20)
        #expect(made.engines.allSatisfy { $0.value == nil }, "engines still alive")
        #expect(containers.allSatisfy { $0() == nil }, "containers still alive")
    }

    @Test func recoveredPageGetsTheEvent() async throws {
        let made = WeakEngines()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(
                recovery: RecoveryPolicy(initialBackoff: .milliseconds(1))),
            factory: FakeFactory(made: made))
        defer { container.close() }
        let engine = try #require(made.engines.first?.value)
        try container.load(URL(string: "https://app.example/")!)
        engine.delegate?.webProcessDidTerminate(reason: .crashed)
        #expect(await waitUntil { engine.loadLog.last == "reload" })
        engine.delegate?.didFinishNavigation(to: engine.currentURL)
        #expect(
            await waitUntil {
                (try? engine.deliveredMessages().contains { $0["e"] as? String == "recovered" }) == true
            })
        let event = try #require(try engine.deliveredMessages().first { $0["e"] as? String == "recovered" })
        let data = try #require(event["d"] as? [String: Any])
        #expect(data["reason"] as? String == "crashed")
        #expect(data["attempt"] as? Int == 1)
    }

    @Test func closingStopsARecoveryThatWasDue() async throws {
        let made = WeakEngines()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(recovery: RecoveryPolicy()), factory: FakeFactory(made: made))
        let engine = try #require(made.engines.first?.value)
        try container.load(URL(string: "https://app.example/")!)
        engine.loadLog.removeAll()
        // The reload is due in a later turn; the page closes first (its view may go to another page).
        engine.delegate?.webProcessDidTerminate(reason: .crashed)
        let recovery = try #require(container.recovery)
        container.close()
        await settle()
        try await Task.sleep(for: .milliseconds(50))
        #expect(engine.loadLog.isEmpty)
        #expect(await recovery.reloads == 0)
    }
}
