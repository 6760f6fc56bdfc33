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

/// Engines whose website data can be cleared by type and age.
public protocol WebsiteDataClearing: AnyObject, Sendable {
    /// Removes data of `types`: all of it when `modifiedSince` is nil, else what was written since that date.
    /// Engines usually keep this data per context (process-wide here), not per view. Engines that cannot honour
    /// `modifiedSince` for a type (WebKitGTK for cookies) throw ``EngineError/unsupported(_:)`` and clear nothing.
    func clearWebsiteData(_ types: WebsiteDataTypes, modifiedSince: Date?) async throws(EngineError)
}
