#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import Testing

/// Published state: read synchronously at document start in the frames the module's access allows, kept current
/// by native, and never readable by a frame that may not call the module.
@Suite(.serialized) struct BridgeStateGTKTests {
    struct Device: Codable, Sendable, Equatable {
        let model: String
        let battery: Int
    }

    /// `device`: the app's origin, subframes too. `secret`: the app's origin, main frame only.
    static let modules = [
        BridgeModule("device", access: .origins("app://demo", allowsSubframes: true)) { module in
            module.method("echo", synchronous: true) { (text: String, _) in text }
        },
        BridgeModule("secret", access: .origins("app://demo")) { module in
            module.method("peek", synchronous: true) { (_: NoArguments, _) in "the secret" }
        },
    ]

    struct FrameReport: Decodable {
        struct AtStart: Decodable {
            let device: Device?
            let token: String?
            let keys: [String]
        }
        struct Attempt: Decodable {
            let value: String?
            let error: String?
        }
        let stateProbe: String
        let atStart: AtStart
        let echo: Attempt
        let secret: Attempt
        let has: String?
    }

    @Test @GTKActor func framesReadWhatTheirAccessAllowsFromDocumentStartAndSeeUpdates() async throws {
        let page = try TestPage(modules: Self.modules)
        defer { page.close() }
        #expect(page.view.verifiesMessageFrames, "the frame-stamping web extension must be loaded")
        try page.page.bridge.publishState("device", Device(model: "HK-1", battery: 80), module: "device")
        try page.page.bridge.publishState("token", "t-123", module: "secret")
        try await page.load("test/state-probe.html")

        // The main frame read both in its first script: no round trip had happened yet.
        struct MainAtStart: Decodable {
            let device: Device?
            let token: String?
            let keys: [String]
        }
        let main: MainAtStart = try await page.evaluate("window.atStart")
        #expect(main.device == Device(model: "HK-1", battery: 80))
        #expect(main.token == "t-123")
        #expect(main.keys.sorted() == ["device", "token"])

        _ = try await page.evaluate(
            """
            (() => {
              window.reports = [];
              window.frameUpdates = [];
              window.addEventListener('message', (event) => {
                if (event.data && event.data.stateProbe !== undefined) window.reports.push(event.data);
                if (event.data && event.data.stateUpdate !== undefined) window.frameUpdates.push(event.data);
              });
              for (const [name, attributes, host] of [
                ['same', '', 'demo'], ['other', '', 'other'], ['sandboxed', 'sandbox="allow-scripts"', 'demo'],
              ]) {
                const holder = document.createElement('div');
                holder.innerHTML = `<iframe ${attributes} src="app://${host}/test/state-probe.html#${name}"></iframe>`;
                document.body.appendChild(holder.firstElementChild);
              }
              return true;
            })()
            """, as: Bool.self)
        try await page.waitFor("window.reports.length === 3")
        let reports = Dictionary(
            uniqueKeysWithValues: try await page.evaluate("window.reports", as: [FrameReport].self).map {
                ($0.stateProbe, $0)
            })

        // An app frame reads `device` (subframes allowed) but not `token` (main frame only).
        let same = try #require(reports["same"])
        #expect(same.atStart.device == Device(model: "HK-1", battery: 80))
        #expect(same.atStart.token == nil)
        #expect(same.atStart.keys == ["device"])
        #expect(same.echo.value == "from a frame")
        #expect(same.secret.error == "denied")
        #expect(same.has == "sync")
        // Another origin, and the app's own page in a sandbox (an opaque origin), read nothing and call nothing.
        for name in ["other", "sandboxed"] {
            let report = try #require(reports[name])
            #expect(report.atStart.device == nil, "\(name)")
            #expect(report.atStart.token == nil, "\(name)")
            #expect(report.atStart.keys.isEmpty, "\(name)")
            #expect(report.echo.error == "denied", "\(name)")
            #expect(report.secret.error == "denied", "\(name)")
            #expect(report.has == nil, "\(name)")
        }

        // An update reaches the main frame and the allowed frame; the others hear nothing.
        try page.page.bridge.publishState("device", Device(model: "HK-1", battery: 79), module: "device")
        try await page.waitFor("hybrid.state.get('device').battery === 79")
        try await page.waitFor("window.frameUpdates.length >= 1")
        try await Task.sleep(for: .milliseconds(300))
        struct Update: Decodable {
            let stateUpdate: String
            let value: Device?
        }
        let updates: [Update] = try await page.evaluate("window.frameUpdates")
        #expect(updates.map(\.stateUpdate) == ["same"])
        #expect(updates.first?.value == Device(model: "HK-1", battery: 79))
        // The value a page read is frozen: changing it changes nothing.
        #expect(
            try await page.evaluate(
                "(() => { const d = hybrid.state.get('device'); try { d.battery = 1; } catch (_) {} return hybrid.state.get('device').battery; })()",
                as: Int.self) == 79)

        // Withdrawn state reads undefined; new documents start with the current values.
        page.page.bridge.removeState("token")
        try await page.waitFor("hybrid.state.get('token') === undefined")
        try await page.load("test/state-probe.html")
        let reloaded: MainAtStart = try await page.evaluate("window.atStart")
        #expect(reloaded.device == Device(model: "HK-1", battery: 79))
        #expect(reloaded.token == nil)
    }

    @Test @GTKActor func publishingRefusesBadNamesAndUnknownModules() async throws {
        let page = try TestPage(modules: Self.modules)
        defer { page.close() }
        let bridge = page.page.bridge
        await #expect(throws: BridgeError.self) { try await bridge.publishState("", 1, module: "device") }
        await #expect(throws: BridgeError.self) { try await bridge.publishState("a b", 1, module: "device") }
        await #expect(throws: BridgeError.self) { try await bridge.publishState("ok", 1, module: "nope") }
        #expect(await bridge.stateNames.isEmpty)
        // A hostile page cannot publish: the receiver ignores a snapshot without native's key.
        try page.page.bridge.publishState("device", Device(model: "real", battery: 1), module: "device")
        try await page.load("test/blank.html")
        let forged: String? = try await page.evaluate(
            """
            (() => {
              window.__hybridReceive(['guess', JSON.stringify([{ k: 'st0', e: [{ n: 'device', v: { model: 'forged', battery: 0 }, o: null, s: true }] }])]);
              return hybrid.state.get('device').model;
            })()
            """)
        #expect(forged == "real")
    }
}
#endif
