#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridNetwork
import HybridTestServers
import Testing

/// Beacons sent as a page leaves (what analytics does on `pagehide`): they must arrive whatever the hooks do with
/// them, as the engine's own do.
@Suite(.serialized) struct BeaconOnLeaveGTKTests {
    static let bodies = [
        "string": "'left'", "blob": "new Blob(['left'], { type: 'text/plain' })",
        "params": "new URLSearchParams({ a: 'left' })", "bytes": "new TextEncoder().encode('left')",
    ]

    /// Where the page is: unhooked, each strategy, and full proxy with the body channel.
    enum Setup: String, CaseIterable, Sendable {
        case unhooked, bodyByID, fullProxy, fullProxyOverChannel

        var side: BodiesLab.Side {
            switch self {
            case .unhooked: .unhooked
            case .bodyByID: .bodyByID
            case .fullProxy, .fullProxyOverChannel: .fullProxy
            }
        }
    }

    @Test(arguments: Setup.allCases, ["string", "blob", "params", "bytes"])
    @GTKActor func aBeaconSentOnPagehideArrives(setup: Setup, body: String) async throws {
        let channel = setup == .fullProxyOverChannel ? try LoopbackBodyChannel.start() : nil
        defer { channel?.stop() }
        let lab = try await BodiesLab(proxy: RequestBodiesTests.makeProxy(), bodyChannel: channel)
        defer { lab.close() }
        try await lab.load(lab.pageURL(setup.side))
        let token = UUID().uuidString
        _ = try await lab.view.evaluateJavaScript(
            """
            (() => {
              window.addEventListener('pagehide', () => {
                navigator.sendBeacon('/beacon?token=\(token)', \(Self.bodies[body] ?? "null"));
              });
              location.href = '/status/200';
              return true;
            })()
            """)
        for _ in 0..<60 where BodyEcho.beaconBodies.withLock({ $0[token] }) == nil {
            try await Task.sleep(for: .milliseconds(50))
        }
        let received = BodyEcho.beaconBodies.withLock { $0[token] ?? [] }
        // A Blob must be read by the hooks before it can go, unless the body channel takes it as it is: the
        // document is gone by then. The page's console says so (see beacon.js); what is claimed is written in
        // RequestBodies.md.
        let readFirst = body == "blob" && (setup == .bodyByID || setup == .fullProxy)
        withKnownIssue("a Blob beacon the hooks must read is lost with the page", isIntermittent: true) {
            #expect(received.count == 1, "\(setup) \(body): \(received.count) beacons arrived")
            if let first = received.first, body != "params" {
                #expect(String(decoding: first, as: UTF8.self) == "left")
            }
        } when: {
            readFirst
        }
    }
}
#endif
