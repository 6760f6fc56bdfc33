#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridDemo
import HybridKit
import HybridKitGTK
import HybridKitTesting
import Testing

/// The tests listen to pages the way the demo does.
typealias PagePosts = PageEvents

enum ContainerTestError: Error { case noPages }

@GTKActor
func tourServing() throws -> DirectoryServing {
    try GTKRuntime.shared.start(.headless)
    guard let serving = DirectoryServing.tourPages else { throw ContainerTestError.noPages }
    return serving
}

extension HybridContainer {
    /// Loads `app://demo/<path>` and waits for the load to finish.
    @GTKActor func loadTourPage(_ path: String, events: PagePosts) async throws {
        let before = events.finishes
        try load(try #require(URL(string: "app://demo/\(path)")))
        try await waitUntil(timeout: .seconds(30)) { events.finishes > before }
    }

    @GTKActor func evaluate<T: Decodable>(_ script: String, as type: T.Type = T.self) async throws -> T {
        try await engine.evaluateJavaScript(script, as: type)
    }
}

/// Every container suite, one at a time: they count live objects and resident memory, which a container suite
/// running alongside would disturb.
@Suite(.serialized) enum ContainerGTKTests {}
#endif
