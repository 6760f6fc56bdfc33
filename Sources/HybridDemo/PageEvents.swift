#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Foundation
import HybridKit

/// What a page and its container tell the host: posts to a host message handler, navigations, recoveries.
/// The demo and the integration tests listen with it, on the engine's actor.
public final class PageEvents: ScriptMessageHandler, PageRecoveryDelegate, NavigationDelegate {
    public private(set) var posts: [String] = []
    public private(set) var reports: [RecoveryReport] = []
    public private(set) var gaveUp: [Int] = []
    public private(set) var commits = 0
    public private(set) var finishes = 0
    public var onCommit: (() -> Void)?

    public init() {}

    public func didReceive(_ message: ScriptMessage, reply: (any ScriptMessageReply)?) {
        if case .string(let text) = message.body { posts.append(text) }
    }
    public func pageRecovered(_ report: RecoveryReport) { reports.append(report) }
    public func pageRecoveryGaveUp(attempts: Int, trigger: RecoveryTrigger) { gaveUp.append(attempts) }
    public func didCommitNavigation(to url: URL?) {
        commits += 1
        onCommit?()
    }
    public func didFinishNavigation(to url: URL?) { finishes += 1 }

    /// The posts, each decoded as a JSON object (the reports pages received through `hybrid.on('recovered')`).
    public func pageReports() throws -> [[String: JSONValue]] {
        try posts.map { try JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8)) }
    }
}
#endif
