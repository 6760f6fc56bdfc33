import Foundation

/// Kinds of data the engine keeps for websites (so caches and storage can be cleared selectively).
public struct WebsiteDataTypes: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let memoryCache = WebsiteDataTypes(rawValue: 1 << 0)
    public static let diskCache = WebsiteDataTypes(rawValue: 1 << 1)
    public static let sessionStorage = WebsiteDataTypes(rawValue: 1 << 2)
    public static let localStorage = WebsiteDataTypes(rawValue: 1 << 3)
    public static let indexedDB = WebsiteDataTypes(rawValue: 1 << 4)
    public static let cookies = WebsiteDataTypes(rawValue: 1 << 5)
    public static let serviceWorkers = WebsiteDataTypes(rawValue: 1 << 6)

    public static let caches: WebsiteDataTypes = [.memoryCache, .diskCache]
    public static let all: WebsiteDataTypes = [
        .memoryCache, .diskCache, .sessionStorage, .localStorage, .indexedDB, .cookies, .serviceWorkers,
    ]
}
