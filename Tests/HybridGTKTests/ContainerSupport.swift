import Foundation
import HybridContainer
import HybridContainerGTK
import HybridCore
import HybridGTK
import HybridTour
import Testing

/// Collects what pages post to a host handler, and recovery reports the container hands its delegate.
final class PagePosts: ScriptMessageHandler, PageRecoveryDelegate, NavigationDelegate, @unchecked Sendable {
    // Touched on GTK's thread only.
    private(set) var posts: [String] = []
    private(set) var reports: [RecoveryReport] = []
    private(set) var gaveUp: [Int] = []
    private(set) var commits = 0
    private(set) var finishes = 0
    var onCommit: (() -> Void)?

    func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
        if case .string(let text) = message.body { posts.append(text) }
    }
    func pageRecovered(_ report: RecoveryReport) { reports.append(report) }
    func pageRecoveryGaveUp(attempts: Int, trigger: RecoveryTrigger) { gaveUp.append(attempts) }
    func didCommitNavigation(to url: URL?) {
        commits += 1
        onCommit?()
    }
    func didFinishNavigation(to url: URL?) { finishes += 1 }

    /// The reports pages received through `hybrid.on('recovered')`.
    func pageReports() throws -> [[String: JSONValue]] {
        try posts.map { try JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8)) }
    }
}

enum ContainerTestError: Error { case noPages }

@GTKActor
func tourServing() throws -> DirectoryServing {
    try GTKRuntime.shared.start()
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
        let json = try await engine.evaluateJavaScript(script) ?? "null"
        return try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }
}

/// Every container suite, one at a time: they count live objects and resident memory, which a container suite
/// running alongside would disturb.
@Suite(.serialized) enum ContainerGTKTests {}
