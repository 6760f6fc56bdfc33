import Foundation
import HybridKit
import HybridPackages
import HybridTestSupport
import Testing

/// A container applying a signed remote configuration, against the fake engine: replacement scripts (checked
/// against their hashes), bridge permissions and hook switches, and their undoing by a newer configuration.
@Suite(.serialized) @EngineActor struct RemoteConfigApplicationTests {
    let keys = PackageKeyPair.generate()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-rca-\(UUID().uuidString)")

    func makeStore() throws -> RemoteConfigStore {
        RemoteConfigStore(
            trustedKey: keys.verificationKey, source: try #require(URL(string: "http://127.0.0.1:9/none")),
            cache: ConfigCache(directory: directory))
    }

    /// A replacement whose content travels separately (only its hash is in the configuration).
    func detached(_ name: String, _ source: String) -> ReplacementScript {
        var script = ReplacementScript(name: name, source: source)
        script.source = nil
        return script
    }

    @Test func appliesTheConfigurationAndANewerOneUndoesWhatItNoLongerSays() async throws {
        let logs = LogCapture.installed()
        logs.reset()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try makeStore()
        let first = RemoteConfig(
            version: 1, hooks: ["fetch": false, "proxy": false],
            bridgePermissions: ["camera": ["https://shop.example"]],
            scripts: [
                detached("fix", "fixed()"), detached("tampered", "good()"),
                ReplacementScript(name: "unregistered", source: "sneaky()"),
            ])
        #expect(store.offer(try SignedConfig.sign(first, with: keys)) == .updated(version: 1))
        let switches = InterceptionSwitches()
        let made = ContainerWiringTests.WeakEngines()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(
                modules: [BridgeModule("camera", access: .anyPage) { _ in }],
                features: [
                    RequestInterceptionFeature(switches: switches),
                    RemoteConfigApplication(
                        store: store,
                        scripts: [
                            NamedUserScript("fix", UserScript(source: "broken()")),
                            NamedUserScript("tampered", UserScript(source: "app()")),
                        ],
                        // What a package would hold; "tampered" arrives altered and must not run.
                        scriptContent: { entry in Data((entry.name == "fix" ? "fixed()" : "evil()").utf8) }),
                ]),
            factory: ContainerWiringTests.FakeFactory(made: made))
        defer { container.close() }
        let engine = try #require(made.engines.first?.value)
        let sources = { engine.userScripts.map(\.source) }

        #expect(container.appliedConfigVersion == 1)
        // Strategies switched off are fallbacks the host hears of.
        #expect(
            logs.messages("hybrid.remote-config").contains {
                $0.hasPrefix("remote configuration 1 switches off the full proxy") && $0.contains("the fetch hook")
            }, "\(logs.messages("hybrid.remote-config"))")
        #expect(sources().suffix(2) == ["fixed()", "app()"])
        #expect(!sources().contains("sneaky()") && !sources().contains("evil()"))
        #expect(
            container.bridge.modules.accessOverrides == ["camera": AccessOverride(origins: ["https://shop.example"])])
        #expect(!switches.isEnabled(.fetch) && switches.isEnabled(.xhr))
        #expect(!switches.proxyEnabled)
        // The hooks were baked with the configuration's switches, so the first document follows them.
        let hooks = try #require(sources().first { $0.contains("__hybridRequests") })
        #expect(hooks.contains(#""fetch":false"#))

        let second = RemoteConfig(version: 2, hooks: ["xhr": false])
        #expect(store.offer(try SignedConfig.sign(second, with: keys)) == .updated(version: 2))
        #expect(try await waitUntil { container.appliedConfigVersion == 2 })
        #expect(sources().contains("broken()") && !sources().contains("fixed()"))
        #expect(container.bridge.modules.accessOverrides.isEmpty)
        #expect(switches.isEnabled(.fetch) && !switches.isEnabled(.xhr))
        #expect(switches.proxyEnabled == false, "no proxy configured: the feature turned it off")
        // The page heard the new switches once published.
        #expect(try await waitUntil { engine.evaluations.contains { $0.contains(#""xhr":false"#) } })
    }

    @Test func aClosedContainerStopsFollowingTheStore() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try makeStore()
        let made = ContainerWiringTests.WeakEngines()
        let container = try HybridContainer(
            configuration: ContainerConfiguration(features: [RemoteConfigApplication(store: store)]),
            factory: ContainerWiringTests.FakeFactory(made: made))
        #expect(container.appliedConfigVersion == nil)
        container.close()
        #expect(store.offer(try SignedConfig.sign(RemoteConfig(version: 1), with: keys)) == .updated(version: 1))
        for _ in 0..<10 { await Task.yield() }
        #expect(container.appliedConfigVersion == nil)
    }
}
