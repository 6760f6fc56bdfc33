/// A change to the jar, delivered to observers after the jar's lock is released.
public struct CookieChange: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case added
        /// A cookie with the same identity was replaced; `previous` holds the old one.
        case updated
        case removed
    }

    public enum Cause: Sendable, Hashable {
        /// Set by a response / page / app, or deleted through the deletion API.
        case explicit
        /// Expired (purged lazily, or deleted by Max-Age<=0 / a past Expires).
        case expired
        /// Removed to respect the per-domain or total limit.
        case evicted
        /// Replaced by a cookie with the same identity.
        case overwritten
    }

    public var kind: Kind
    public var cause: Cause
    public var cookie: JarCookie
    public var previous: JarCookie?

    public init(kind: Kind, cause: Cause, cookie: JarCookie, previous: JarCookie? = nil) {
        self.kind = kind
        self.cause = cause
        self.cookie = cookie
        self.previous = previous
    }
}
