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

/// Which WKWebsiteDataStore a stand-in view belongs to, as the backend is told when it makes the view's engine
/// (``WKStandInBackend/init(executor:makeEngineInStore:)``).
public enum WKStandInDataStoreID: Hashable, Sendable, CustomStringConvertible {
    case `default`
    /// One `nonPersistent()` store: each call makes a new one, numbered in order.
    case nonPersistent(Int)
    case identified(UUID)

    public var description: String {
        switch self {
        case .default: "default"
        case .nonPersistent(let serial): "nonPersistent #\(serial)"
        case .identified(let id): "identified \(id.uuidString)"
        }
    }
}

/// As WebKit: each store is its own network session. Cookies, their change notifications and `removeData` reach
/// only the engines of views that use the store; `init(forIdentifier:)` gives the same store for the same
/// identifier while the process lives. Separation needs a backend that makes engines per store
/// (``WKStandInBackend/init(executor:makeEngineInStore:)``); WebKitGTK behind the stand-in keeps one context,
/// so with it every store shares that context's website data.
@MainActor public final class WKWebsiteDataStore: NSObject {
    /// What several WKWebsiteDataStore objects of one identifier share.
    @MainActor final class Session {
        let id: WKStandInDataStoreID
        var views: [WeakView] = []
        private(set) lazy var cookieStore = WKHTTPCookieStore(session: self)

        init(id: WKStandInDataStoreID) { self.id = id }

        func liveBacking() -> StandInBacking? {
            views.removeAll { $0.view == nil }
            return views.lazy.compactMap { $0.view?.backing }.first
        }
    }

    private static let shared = WKWebsiteDataStore(session: Session(id: .default))
    private static var identifiedSessions: [UUID: Session] = [:]
    private static var nonPersistentCount = 0
    let session: Session
    public var isPersistent: Bool {
        if case .nonPersistent = session.id { false } else { true }
    }
    public var httpCookieStore: WKHTTPCookieStore { session.cookieStore }
    @available(iOS 17.0, macOS 14.0, *)
    public var identifier: UUID? {
        if case .identified(let id) = session.id { id } else { nil }
    }

    private init(session: Session) { self.session = session }

    public static func `default`() -> WKWebsiteDataStore {
        requireMainThread("+[WKWebsiteDataStore defaultDataStore]")
        return shared
    }

    public static func nonPersistent() -> WKWebsiteDataStore {
        requireMainThread("+[WKWebsiteDataStore nonPersistentDataStore]")
        nonPersistentCount += 1
        return WKWebsiteDataStore(session: Session(id: .nonPersistent(nonPersistentCount)))
    }

    /// The persistent store of `identifier`, made on first use.
    @available(iOS 17.0, macOS 14.0, *)
    public convenience init(forIdentifier identifier: UUID) {
        requireMainThread("+[WKWebsiteDataStore dataStoreForIdentifier:]")
        let session = Self.identifiedSessions[identifier] ?? Session(id: .identified(identifier))
        Self.identifiedSessions[identifier] = session
        self.init(session: session)
    }

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
        // This store's session only: other stores' data stays.
        guard !wanted.isEmpty, let backing = session.liveBacking() else { return }
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
        session.views.removeAll { $0.view == nil }
        session.views.append(WeakView(view: view))
        httpCookieStore.attach(view)
    }
}

@MainActor public final class WKHTTPCookieStore: NSObject {
    // Weak: the session owns this store (a cookie store an adapter keeps may outlive a non-persistent session).
    private weak var session: WKWebsiteDataStore.Session?
    // As WebKit's `WKHTTPCookieStore.mm`: observers are keyed by their address and held weakly, an `add` for
    // a key already held is ignored, and only `remove` drops a key. An observer that dies without being
    // removed leaves its key behind, so a new object allocated at the same address is silently never told.
    private var observers: [UInt: WeakObserver] = [:]
    private var observing = false

    init(session: WKWebsiteDataStore.Session) { self.session = session }

    public func getAllCookies(_ completionHandler: @escaping @MainActor @Sendable ([HTTPCookie]) -> Void) {
        requireMainThread("-[WKHTTPCookieStore getAllCookies:]")
        Task { @MainActor in completionHandler(await self.allCookies()) }
    }

    public func allCookies() async -> [HTTPCookie] {
        guard let backing = session?.liveBacking() else { return [] }
        let cookies: [EngineCookie] = await withCheckedContinuation { continuation in
            backing.perform(
                { engine in
                    // The store is read on the engine's actor; its async calls hop by themselves.
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
        let key = Self.key(of: observer)
        guard observers[key] == nil else { return }
        observers[key] = WeakObserver(observer: observer)
    }

    public func remove(_ observer: any WKHTTPCookieStoreObserver) {
        requireMainThread("-[WKHTTPCookieStore removeObserver:]")
        observers.removeValue(forKey: Self.key(of: observer))
    }

    /// Keys the registry holds, whether or not their observer is still alive (WebKit's registry as is).
    public var standInObserverKeyCount: Int { observers.count }

    /// Keys whose observer is gone: each one blocks any new observer that gets its address.
    public var standInDeadObserverKeyCount: Int { observers.values.filter { $0.observer == nil }.count }

    private static func key(of observer: any WKHTTPCookieStoreObserver) -> UInt {
        UInt(bitPattern: ObjectIdentifier(observer))
    }

    private func run(_ body: @escaping @Sendable (any EngineCookieStore) async -> Void) async {
        guard let backing = session?.liveBacking() else { return }
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

    /// What WebKit does when the store's cookies change: every live registered observer is told.
    func notifyObservers() {
        for entry in observers.values { entry.observer?.cookiesDidChange(in: self) }
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
