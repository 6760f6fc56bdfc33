import Foundation

/// Which pages are hooked and how: a strategy per page URL prefix (longest prefix wins), a degrade list of
/// prefixes never hooked, and the limits the hooks work within.
public struct InterceptionConfig: Sendable, Equatable {
    public struct Rule: Sendable, Equatable, Codable {
        public var prefix: String
        public var strategy: InterceptionStrategy

        public init(prefix: String, strategy: InterceptionStrategy) {
            self.prefix = prefix
            self.strategy = strategy
        }
    }

    /// Strategy for page URLs no rule covers.
    public var defaultStrategy: InterceptionStrategy
    public var rules: [Rule]
    /// Page URL prefixes where nothing is hooked whatever the rules say (pages the hooks break).
    public var degraded: [String]
    /// Bytes per chunk when the page uploads a body (each chunk is one request to the reserved path).
    public var chunkBytes: Int
    /// Chunk requests of one body in flight at once (1 sends them one after another). Several in flight hide the
    /// round trip of each; the store takes them in any order.
    public var uploadsInFlight: Int
    public var store: BodyStoreLimits

    public init(
        defaultStrategy: InterceptionStrategy = .bodyByID, rules: [Rule] = [], degraded: [String] = [],
        chunkBytes: Int = 1 << 20, uploadsInFlight: Int = 4, store: BodyStoreLimits = BodyStoreLimits()
    ) {
        self.defaultStrategy = defaultStrategy
        self.rules = rules
        self.degraded = degraded
        self.chunkBytes = chunkBytes
        self.uploadsInFlight = uploadsInFlight
        self.store = store
    }

    /// The strategy for a page (or frame) at `pageURL`; the hooks resolve the same way in the page.
    public func strategy(for pageURL: String) -> InterceptionStrategy {
        if degraded.contains(where: { pageURL.hasPrefix($0) }) { return .off }
        let rule = rules.filter { pageURL.hasPrefix($0.prefix) }.max { $0.prefix.count < $1.prefix.count }
        return rule?.strategy ?? defaultStrategy
    }
}
