import Foundation

/// A cookie as engines store it.
public struct EngineCookie: Sendable, Equatable, Hashable {
    public enum SameSite: String, Sendable { case strict = "Strict", lax = "Lax", none = "None" }

    public var name: String
    public var value: String
    /// With a leading dot for domain cookies, without for host-only ones (the engines' convention).
    public var domain: String
    public var path: String
    /// `nil` for a session cookie.
    public var expires: Date?
    public var isSecure: Bool
    public var isHTTPOnly: Bool
    public var sameSite: SameSite?

    public init(
        name: String, value: String, domain: String, path: String = "/", expires: Date? = nil,
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: SameSite? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
    }
}

/// The engine's own cookie store (WKHTTPCookieStore, WebKitCookieManager), on the engine's actor.
@EngineActor
public protocol EngineCookieStore: AnyObject, Sendable {
    /// Cookies the engine would send to `url`, or every cookie when `url` is nil.
    func cookies(for url: URL?) async throws(EngineError) -> [EngineCookie]
    func setCookie(_ cookie: EngineCookie) async throws(EngineError)
    func deleteCookie(_ cookie: EngineCookie) async throws(EngineError)
    /// Calls `observer` on the engine's actor whenever the store changes. Lives as long as the store.
    func observeChanges(_ observer: @escaping @Sendable () -> Void)
}
