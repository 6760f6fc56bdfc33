#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import CWebKitGTK
import Foundation
import HybridKit

extension GTKWebView {
    /// Clears data of the context every ``GTKWebView`` shares (`webkit_website_data_manager_clear`).
    public nonisolated func clearWebsiteData(_ types: WebsiteDataTypes, modifiedSince: Date?) async throws(EngineError)
    {
        try await clearData(types, modifiedSince: modifiedSince)
    }

    private func clearData(_ types: WebsiteDataTypes, modifiedSince: Date?) async throws(EngineError) {
        // GTimeSpan counts microseconds back from now; 0 means "everything".
        var timespan: GTimeSpan = 0
        if let modifiedSince {
            // libsoup's cookie jar keeps no dates: WebKitGTK would log a warning and delete nothing.
            guard !types.contains(.cookies) else {
                throw .unsupported(
                    "clearing cookies by date (WebKitGTK keeps no cookie dates); clear them with no date")
            }
            let seconds = Date().timeIntervalSince(modifiedSince)
            guard seconds > 0 else { return }
            timespan = GTimeSpan(min(seconds * 1_000_000, Double(Int64.max / 2)))
            if timespan == 0 { timespan = 1 }
        }
        let mask = GTKWebView.websiteDataMask(types)
        guard mask.rawValue != 0 else { return }
        guard let manager = webkit_web_context_get_website_data_manager(GTKWebContext.shared.context) else {
            throw .engine("the web context has no website data manager")
        }
        let _: Bool = try await gioAsync(
            start: { callback, data in
                webkit_website_data_manager_clear(manager, mask, timespan, nil, callback, data)
            },
            finish: { _, result in
                var error: UnsafeMutablePointer<GError>?
                guard webkit_website_data_manager_clear_finish(manager, result, &error) != 0 else {
                    return .failure(.engine("clearing website data failed: \(takeGError(error))"))
                }
                return .success(true)
            })
    }

    static func websiteDataMask(_ types: WebsiteDataTypes) -> WebKitWebsiteDataTypes {
        var mask: UInt32 = 0
        let pairs: [(WebsiteDataTypes, WebKitWebsiteDataTypes)] = [
            (.memoryCache, WEBKIT_WEBSITE_DATA_MEMORY_CACHE), (.diskCache, WEBKIT_WEBSITE_DATA_DISK_CACHE),
            (.sessionStorage, WEBKIT_WEBSITE_DATA_SESSION_STORAGE), (.localStorage, WEBKIT_WEBSITE_DATA_LOCAL_STORAGE),
            (.indexedDB, WEBKIT_WEBSITE_DATA_INDEXEDDB_DATABASES), (.cookies, WEBKIT_WEBSITE_DATA_COOKIES),
            (.serviceWorkers, WEBKIT_WEBSITE_DATA_SERVICE_WORKER_REGISTRATIONS),
        ]
        for (type, flag) in pairs where types.contains(type) { mask |= flag.rawValue }
        // The engine's DOM cache (Cache API) goes with the disk cache: both are "what the site cached".
        if types.contains(.diskCache) { mask |= WEBKIT_WEBSITE_DATA_DOM_CACHE.rawValue }
        return WebKitWebsiteDataTypes(rawValue: mask)
    }
}
#endif
