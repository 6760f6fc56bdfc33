import HybridCookies

/// Names a value that page features share while a page is wired (see ``PageFeature``): the key's type is the
/// name, ``Value`` the type of what it holds. Declare one per service, as HybridKit's own features do:
///
/// ```swift
/// enum AnalyticsTagKey: PageServiceKey { typealias Value = String }
/// extension PageServiceID { static let analyticsTag = PageServiceID(AnalyticsTagKey.self) }
/// ```
public protocol PageServiceKey: Sendable {
    associatedtype Value: Sendable
    /// Whether several features may provide the service, each adding to it (a set of served schemes, say).
    /// False (the default): a second provider is an error when the container is made.
    static var allowsSeveralProviders: Bool { get }
}

extension PageServiceKey {
    public static var allowsSeveralProviders: Bool { false }
}

/// A service named in ``PageFeature/provides`` and ``PageFeature/needs``.
public struct PageServiceID: Hashable, Sendable, CustomStringConvertible {
    let key: ObjectIdentifier
    public let description: String
    let allowsSeveralProviders: Bool

    public init<Key: PageServiceKey>(_ key: Key.Type) {
        self.key = ObjectIdentifier(key)
        description = String(describing: key)
        allowsSeveralProviders = key.allowsSeveralProviders
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.key == rhs.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

/// What features share while a page is wired, by ``PageServiceKey``; each feature reads and writes the
/// services it declares (see ``PageFeature``).
public struct PageServices: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]
    /// Services written since the container last looked: it checks each feature wrote only what it declared.
    private(set) var written: Set<PageServiceID> = []

    public init() {}

    public subscript<Key: PageServiceKey>(key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set {
            values[ObjectIdentifier(key)] = newValue
            written.insert(PageServiceID(key))
        }
    }

    /// The service's value, or `defaultValue` until one is written: `services[ServedSchemesKey.self, default: []]`.
    public subscript<Key: PageServiceKey>(key: Key.Type, default defaultValue: @autoclosure () -> Key.Value)
        -> Key.Value
    {
        get { self[key] ?? defaultValue() }
        set { self[key] = newValue }
    }

    mutating func takeWritten() -> Set<PageServiceID> {
        defer { written = [] }
        return written
    }
}

// MARK: HybridKit's own services

/// Custom schemes the page's features serve (lowercased). A feature that serves one adds it, so the container
/// gives that scheme request-body hooks and `document.cookie` by default (see
/// ``ContainerConfiguration/requestInterception``).
public enum ServedSchemesKey: PageServiceKey {
    public typealias Value = Set<String>
    public static var allowsSeveralProviders: Bool { true }
}

/// The route packages are served on (``PackageServing``).
public enum PackageRouteKey: PageServiceKey { public typealias Value = OfflineRoute }

/// The handler serving the packages' route (``PackageServing``).
public enum PackageHandlerKey: PageServiceKey { public typealias Value = PackageSchemeHandler }

/// The request hooks of the page (``RequestInterceptionFeature``): the scheme they serve and their switches.
public enum RequestHooksKey: PageServiceKey {
    public struct Value: Sendable {
        public let scheme: String
        public let switches: InterceptionSwitches
    }
}

/// Overrides laid over the hook switches before the hooks are baked (``RemoteConfigApplication``): given the
/// scheme the hooks serve, the overrides of the configuration in use, if any.
public enum HookOverridesKey: PageServiceKey {
    public typealias Value = @Sendable (_ hookedScheme: String) -> InterceptionSwitches.Overrides?
}

/// The `document.cookie` shim's scheme (``DocumentCookieFeature``).
public enum DocumentCookieSchemeKey: PageServiceKey { public typealias Value = String }

/// The jar the page's cookies live in (``DocumentCookieFeature``), which the package network fallback reads and
/// stores cookies in unless its host gave it a network of its own.
public enum CookieJarKey: PageServiceKey { public typealias Value = CookieJar }

extension PageServiceID {
    public static let servedSchemes = PageServiceID(ServedSchemesKey.self)
    public static let packageRoute = PageServiceID(PackageRouteKey.self)
    public static let packageHandler = PageServiceID(PackageHandlerKey.self)
    public static let requestHooks = PageServiceID(RequestHooksKey.self)
    public static let hookOverrides = PageServiceID(HookOverridesKey.self)
    public static let documentCookieScheme = PageServiceID(DocumentCookieSchemeKey.self)
    public static let cookieJar = PageServiceID(CookieJarKey.self)
}

extension PageServices {
    public var servedSchemes: Set<String> { self[ServedSchemesKey.self, default: []] }
    public var packageRoute: OfflineRoute? { self[PackageRouteKey.self] }
    public var packageScheme: String? { packageRoute?.scheme }
    public var packageHandler: PackageSchemeHandler? { self[PackageHandlerKey.self] }
    public var requestHooks: RequestHooksKey.Value? { self[RequestHooksKey.self] }
    public var documentCookieScheme: String? { self[DocumentCookieSchemeKey.self] }
    public var cookieJar: CookieJar? { self[CookieJarKey.self] }
}
