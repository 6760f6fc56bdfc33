#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import HybridKit
import HybridKitGTK

/// The demo's remote-configuration line: a newer signed configuration reaching an open page.
@GTKActor
enum RemoteConfigTour {
    static func run() async throws -> [TourLine] {
        let rig = try await RemoteConfigRig()
        defer { rig.close() }
        try rig.publish(RemoteConfig(version: 1, scripts: [RemoteConfigRig.marker("v1")]))
        try await rig.load("index.html", title: "package main")
        let before = try await rig.callCamera()
        try rig.publish(
            RemoteConfig(
                version: 2, degradedPrefixes: ["\(rig.prefix)legacy/"], hooks: ["fetch": false],
                bridgePermissions: ["camera": ["https://elsewhere.example"]], scripts: [RemoteConfigRig.marker("v2")]))
        guard await TourWait.until({ rig.container.appliedConfigVersion == 2 }) else {
            throw ContainerTour.Failure.timedOut("version 2 to reach the page")
        }
        let after = try await rig.callCamera()
        _ = try rig.publishForged(RemoteConfig(version: 3))
        try await rig.load("index.html", title: "package main")
        let marker = try await rig.evaluate("window.marker")
        try await rig.load("legacy/index.html", title: "network legacy")
        let passed =
            before == "ok snapped" && after.hasPrefix("error") && marker == "\"v2\""
            && rig.container.appliedConfigVersion == 2
        return [
            TourLine(
                name: "signed remote config", passed: passed,
                detail: passed
                    ? "version 2 reached the open page: camera module withdrawn, script replaced, legacy/ from the "
                        + "network; a forged version 3 ignored"
                    : "camera before '\(before)', after '\(after)', marker \(marker ?? "nil"), "
                        + "version \(rig.container.appliedConfigVersion.map(String.init) ?? "none")")
        ]
    }
}
#endif
