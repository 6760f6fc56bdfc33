#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridKit
import HybridKitGTK
import Testing

/// A signed remote configuration applied to a live container in real WebKitGTK: the degrade list moves a
/// packaged page to the network, a hook switch unhooks fetch (and only fetch), bridge permissions withdraw a
/// module, and a replacement script reaches the next document. The container's navigation policy runs too.
extension ContainerGTKTests {
    @Suite struct RemoteConfigApplied {
        @Test @GTKActor func aNewerConfigurationReachesTheLivePage() async throws {
            let rig = try await RemoteConfigRig()
            defer { rig.close() }
            #expect(rig.container.appliedConfigVersion == nil)
            #expect(
                try rig.publish(RemoteConfig(version: 1, scripts: [RemoteConfigRig.marker("v1")]))
                    == .updated(version: 1))
            try await waitUntil(timeout: .seconds(30)) { rig.container.appliedConfigVersion == 1 }
            let policyHost = PolicyHostRecorder()
            rig.container.navigationPolicyHost = policyHost

            // Version 1: packaged pages, everything hooked (full proxy), the module open, the script replaced.
            try await rig.load("legacy/index.html", title: "package legacy")
            try await rig.load("index.html", title: "package main")
            #expect(try await rig.evaluate("window.marker") == "\"v1\"")
            #expect(try await rig.callCamera() == "ok snapped")
            #expect(try await rig.post(with: "fetch") == "ok echoed")
            #expect(try await rig.post(with: "xhr") == "ok echoed")
            #expect(rig.proxied == 2)
            // The container's navigation policy: its own scheme loads (above), tel: goes to the host.
            _ = try await rig.evaluate("location.href = 'tel:+15550100'; 1")
            try await waitUntil(timeout: .seconds(30)) {
                policyHost.external.map(\.url.absoluteString) == ["tel:+15550100"]
            }
            #expect(rig.container.engine.title == "package main")

            // Version 2 arrives while the page is open.
            let second = RemoteConfig(
                version: 2, degradedPrefixes: ["\(rig.prefix)legacy/"], hooks: ["fetch": false],
                bridgePermissions: ["camera": ["https://elsewhere.example"]], scripts: [RemoteConfigRig.marker("v2")])
            #expect(try rig.publish(second) == .updated(version: 2))
            try await waitUntil(timeout: .seconds(30)) { rig.container.appliedConfigVersion == 2 }

            // At once, in the open page: the module is withdrawn; fetch goes to the engine, XHR still hooked.
            let denied = try await rig.callCamera()
            #expect(denied.hasPrefix("error") && denied.contains("camera"), "\(denied)")
            try await waitUntil(timeout: .seconds(30)) {
                try await rig.evaluate("__hybridRequestSwitches.apis.fetch") == "false"
            }
            #expect(try await rig.post(with: "fetch") == "ok echoed")
            #expect(rig.proxied == 2, "fetch no longer goes through the proxy")
            #expect(try await rig.post(with: "xhr") == "ok echoed")
            #expect(rig.proxied == 3, "XHR still does")

            // The next documents: the replaced script, and the degraded page from the network.
            try await rig.load("index.html", title: "package main")
            #expect(try await rig.evaluate("window.marker") == "\"v2\"")
            #expect(try await rig.post(with: "fetch") == "ok echoed")
            #expect(rig.proxied == 3, "fetch stays unhooked in a new document")
            try await rig.load("legacy/index.html", title: "network legacy")
            #expect(try await rig.evaluate("__hybridRequests.strategy") == "\"off\"")

            // A configuration signed by another key changes nothing: the last good one stays.
            if case .updated = try rig.publishForged(RemoteConfig(version: 3)) {
                Issue.record("a configuration signed by another key was taken")
            }
            #expect(rig.container.appliedConfigVersion == 2)
        }
    }
}
#endif
