#if os(Linux)
    import Foundation
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif
    import HybridKit

    public let WKWebsiteDataTypeFetchCache = "WKWebsiteDataTypeFetchCache"
    public let WKWebsiteDataTypeDiskCache = "WKWebsiteDataTypeDiskCache"
    public let WKWebsiteDataTypeMemoryCache = "WKWebsiteDataTypeMemoryCache"
    public let WKWebsiteDataTypeOfflineWebApplicationCache = "WKWebsiteDataTypeOfflineWebApplicationCache"
    public let WKWebsiteDataTypeCookies = "WKWebsiteDataTypeCookies"
    public let WKWebsiteDataTypeSessionStorage = "WKWebsiteDataTypeSessionStorage"
    public let WKWebsiteDataTypeLocalStorage = "WKWebsiteDataTypeLocalStorage"
    public let WKWebsiteDataTypeWebSQLDatabases = "WKWebsiteDataTypeWebSQLDatabases"
    public let WKWebsiteDataTypeIndexedDBDatabases = "WKWebsiteDataTypeIndexedDBDatabases"
    public let WKWebsiteDataTypeServiceWorkerRegistrations = "WKWebsiteDataTypeServiceWorkerRegistrations"

    /// Backed by whichever live view uses the store: the engines behind the stand-in keep website data per
    /// context (WebKitGTK's one context), not per WKWebsiteDataStore, so `nonPersistent()` stores are not
    /// separated from `default()` here.
    @MainActor public final class WKWebsiteDataStore: NSObject {
        private static let shared = WKWebsiteDataStore(isPersistent: true)
        public let isPersistent: Bool
        public private(set) lazy var httpCookieStore = WKHTTPCookieStore(dataStore: self)
        private var views: [WeakView] = []

        private init(isPersistent: Bool) { self.isPersistent = isPersistent }

        public static func `default`() -> WKWebsiteDataStore { shared }
        public static func nonPersistent() -> WKWebsiteDataStore { WKWebsiteDataStore(isPersistent: false) }

        public static func allWebsiteDataTypes() -> Set<String> {
            [
                WKWebsiteDataTypeFetchCache, WKWebsiteDataTypeDiskCache, WKWebsiteDataTypeMemoryCache,
                WKWebsiteDataTypeOfflineWebApplicationCache, WKWebsiteDataTypeCookies,
                WKWebsiteDataTypeSessionStorage, WKWebsiteDataTypeLocalStorage, WKWebsiteDataTypeWebSQLDatabases,
                WKWebsiteDataTypeIndexedDBDatabases, WKWebsiteDataTypeServiceWorkerRegistrations,
            ]
        }

        public func removeData(ofTypes dataTypes: Set<String>, modifiedSince date: Date) async {
            requireMainThread("-[WKWebsiteDataStore removeDataOfTypes:modifiedSince:completionHandler:]")
            var types: WebsiteDataTypes = []
            let pairs: [(String, WebsiteDataTypes)] = [
                (WKWebsiteDataTypeMemoryCache, .memoryCache), (WKWebsiteDataTypeDiskCache, .diskCache),
                (WKWebsiteDataTypeFetchCache, .diskCache), (WKWebsiteDataTypeSessionStorage, .sessionStorage),
                (WKWebsiteDataTypeLocalStorage, .localStorage), (WKWebsiteDataTypeIndexedDBDatabases, .indexedDB),
                (WKWebsiteDataTypeCookies, .cookies),
                (WKWebsiteDataTypeServiceWorkerRegistrations, .serviceWorkers),
            ]
            for (name, type) in pairs where dataTypes.contains(name) { types.insert(type) }
            // WebKit never fails this call; an engine that cannot honour a date (WebKitGTK for cookies) clears
            // nothing, as WebKit would have cleared nothing newer than a future date.
            let since: Date? = date <= Date(timeIntervalSince1970: 0) ? nil : date
            let wanted = types
            guard !wanted.isEmpty, let backing = liveBacking() else { return }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                backing.perform(
                    { engine in
                        Task {
                            try? await engine.clearWebsiteData(wanted, modifiedSince: since)
                            continuation.resume()
                        }
                    }, orElse: { continuation.resume() })
            }
        }

        func attach(_ view: WKWebView) {
            views.removeAll { $0.view == nil }
            views.append(WeakView(view: view))
            httpCookieStore.attach(view)
        }

        func liveBacking() -> StandInBacking? {
            views.removeAll { $0.view == nil }
            return views.lazy.compactMap { $0.view?.backing }.first
        }
    }

    @MainActor public final class WKHTTPCookieStore: NSObject {
        private unowned let dataStore: WKWebsiteDataStore
        // WebKit holds its observers weakly.
        private var observers: [WeakObserver] = []
        private var observing = false

        init(dataStore: WKWebsiteDataStore) { self.dataStore = dataStore }

        public func getAllCookies(_ completionHandler: @escaping @MainActor @Sendable ([HTTPCookie]) -> Void) {
            requireMainThread("-[WKHTTPCookieStore getAllCookies:]")
            Task { @MainActor in completionHandler(await self.allCookies()) }
        }

        public func allCookies() async -> [HTTPCookie] {
            guard let backing = dataStore.liveBacking() else { return [] }
            let cookies: [EngineCookie] = await withCheckedContinuation { continuation in
                backing.perform(
                    { engine in
                        // The store is read on the engine's executor; its async calls hop by themselves.
                        let store = engine.cookieStore
                        Task {
                            let cookies = (try? await store.cookies(for: nil)) ?? []
                            continuation.resume(returning: cookies)
                        }
                    }, orElse: { continuation.resume(returning: []) })
            }
            return cookies.compactMap(Self.httpCookie)
        }

        public func setCookie(_ cookie: HTTPCookie, completionHandler: (@MainActor @Sendable () -> Void)?) {
            Task { @MainActor in
                await self.setCookie(cookie)
                completionHandler?()
            }
        }

        public func setCookie(_ cookie: HTTPCookie) async {
            let engineCookie = Self.engineCookie(cookie)
            await run { store in try? await store.setCookie(engineCookie) }
        }

        public func delete(_ cookie: HTTPCookie, completionHandler: (@MainActor @Sendable () -> Void)?) {
            Task { @MainActor in
                await self.deleteCookie(cookie)
                completionHandler?()
            }
        }

        public func deleteCookie(_ cookie: HTTPCookie) async {
            let engineCookie = Self.engineCookie(cookie)
            await run { store in try? await store.deleteCookie(engineCookie) }
        }

        public func add(_ observer: any WKHTTPCookieStoreObserver) {
            requireMainThread("-[WKHTTPCookieStore addObserver:]")
            observers.removeAll { $0.observer == nil }
            observers.append(WeakObserver(observer: observer))
        }

        public func remove(_ observer: any WKHTTPCookieStoreObserver) {
            observers.removeAll { $0.observer == nil || $0.observer === observer }
        }

        private func run(_ body: @escaping @Sendable (any EngineCookieStore) async -> Void) async {
            guard let backing = dataStore.liveBacking() else { return }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                backing.perform(
                    { engine in
                        let store = engine.cookieStore
                        Task {
                            await body(store)
                            continuation.resume()
                        }
                    }, orElse: { continuation.resume() })
            }
        }

        func attach(_ view: WKWebView) {
            // One engine's change notifications stand for the store (the engines share their cookie jar).
            guard !observing, let backing = view.backing else { return }
            observing = true
            let main = backing.main
            backing.perform { engine in
                engine.cookieStore.observeChanges { [weak self] in
                    main.post { self?.notifyObservers() }
                }
            }
        }

        private func notifyObservers() {
            observers.removeAll { $0.observer == nil }
            for entry in observers { entry.observer?.cookiesDidChange(in: self) }
        }

        static func httpCookie(_ cookie: EngineCookie) -> HTTPCookie? {
            var properties: [HTTPCookiePropertyKey: Any] = [
                .name: cookie.name, .value: cookie.value, .domain: cookie.domain, .path: cookie.path,
            ]
            if let expires = cookie.expires { properties[.expires] = expires }
            if cookie.isSecure { properties[.secure] = "TRUE" }
            if cookie.isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
            switch cookie.sameSite {
            case .some(.lax): properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteLax
            case .some(.strict): properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteStrict
            case .some(.none), nil: break
            }
            return HTTPCookie(properties: properties)
        }

        static func engineCookie(_ cookie: HTTPCookie) -> EngineCookie {
            let sameSite: EngineCookie.SameSite? =
                switch cookie.sameSitePolicy {
                case .some(.sameSiteLax): .lax
                case .some(.sameSiteStrict): .strict
                default: nil
                }
            return EngineCookie(
                name: cookie.name, value: cookie.value, domain: cookie.domain, path: cookie.path,
                expires: cookie.expiresDate, isSecure: cookie.isSecure, isHTTPOnly: cookie.isHTTPOnly,
                sameSite: sameSite)
        }
    }

    // Foundation on Linux has no SameSite on HTTPCookie. The stand-in declares Apple's names and raw values so
    // HybridKitWK compiles unchanged, but Linux's HTTPCookie drops the property: SameSite does not survive a round
    // trip through the stand-in's cookie store (HybridKitWK's mapping is unit-tested on the properties it writes).
    public struct HTTPCookieStringPolicy: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let sameSiteLax = HTTPCookieStringPolicy(rawValue: "lax")
        public static let sameSiteStrict = HTTPCookieStringPolicy(rawValue: "strict")
    }

    extension HTTPCookiePropertyKey {
        public static let sameSitePolicy = HTTPCookiePropertyKey("SameSite")
    }

    extension HTTPCookie {
        /// Always nil on Linux (see HTTPCookieStringPolicy above).
        public var sameSitePolicy: HTTPCookieStringPolicy? { nil }
    }

    struct WeakObserver {
        weak var observer: (any WKHTTPCookieStoreObserver)?
    }
#endif
