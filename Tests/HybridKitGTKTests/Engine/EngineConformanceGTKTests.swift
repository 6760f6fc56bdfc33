#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit
import HybridKitGTK
import HybridKitTesting
import HybridTestServers
import Testing

/// WebKitGTK against the port: every case of HybridKitTesting's engine conformance suite.
@Suite(.serialized) struct EngineConformanceGTKTests {
    struct Host: EngineConformanceHost {
        func makeFactory(settings: WebViewSettings) throws -> any WebEngineFactory {
            try GTKRuntime.shared.start(.headless)
            return GTKEngineFactory(configuration: GTKWebView.Configuration(settings: settings))
        }

        func serveHTTP(directory: URL) async throws -> ConformanceHTTPOrigin {
            let server = try await LoopbackServer.start(serving: directory)
            guard let url = URL(string: server.origin + "/") else { throw LoopbackServerError.didNotStart }
            return ConformanceHTTPOrigin(url: url) { await server.shutdown() }
        }
    }

    /// Cases WebKitGTK fails, and why. Run as known issues, so one that starts passing fails this test and gets
    /// taken off the list. None today: the one there was (no download of a custom-scheme response) the adapter
    /// now reports itself.
    static let knownGaps: [String: String] = [:]

    @Test(arguments: EngineConformance.cases)
    func conforms(_ check: ConformanceCase) async throws {
        if let gap = Self.knownGaps[check.name] {
            await withKnownIssue(Comment(rawValue: gap)) { try await check.run(on: Host()) }
            return
        }
        do {
            try await check.run(on: Host())
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func everyCaseHasAUniqueNameAndEveryGapACase() {
        let names = EngineConformance.cases.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(Set(Self.knownGaps.keys).isSubset(of: Set(names)))
    }

    /// The suite's frame case checks origins only on engines that vouch for frames; WebKitGTK must, with the
    /// web-process extension `swift build` builds, or that case would pass without checking anything.
    @Test @GTKActor func webKitGTKVouchesForMessageFrames() throws {
        let engine = try Host().makeFactory(settings: WebViewSettings()).makeEngine()
        defer { engine.close() }
        #expect(engine.verifiesMessageFrames)
        #expect(engine.supportsMessageReplies)
    }
}
#endif
