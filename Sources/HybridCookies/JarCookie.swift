import Foundation

/// One stored cookie, in the RFC 6265bis §5.7 storage model.
///
/// Identity in the jar is (`name`, `domain`, `hostOnly`, `path`): 6265bis includes the host-only flag
/// so a host-only `a` and a `Domain=`-cookie `a` for the same host are two cookies (as in browsers).
///
/// Named for the jar rather than `Cookie` so that an app which also imports a server framework with a `Cookie`
/// type of its own (Hummingbird, Vapor) needs no module prefix for either.
public struct JarCookie: Sendable, Hashable, Codable {
    public var name: String
    public var value: String
    /// Canonical (lower-case, punycoded, no leading dot) domain.
    public var domain: String
    /// Cookie path; always starts with "/".
    public var path: String
    /// `true` when the cookie had no Domain attribute: it is only sent to exactly `domain`.
    public var hostOnly: Bool
    public var secure: Bool
    public var httpOnly: Bool
    public var sameSite: CookieSameSite
    /// `nil` for a session cookie (not persisted, lives until the jar is dropped).
    public var expiresDate: Date?
    public var creationDate: Date
    public var lastAccessDate: Date

    public init(
        name: String,
        value: String,
        domain: String,
        path: String = "/",
        hostOnly: Bool = true,
        secure: Bool = false,
        httpOnly: Bool = false,
        sameSite: CookieSameSite = .unspecified,
        expiresDate: Date? = nil,
        creationDate: Date = Date(),
        lastAccessDate: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.hostOnly = hostOnly
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
        self.expiresDate = expiresDate
        self.creationDate = creationDate
        self.lastAccessDate = lastAccessDate ?? creationDate
    }

    /// Session cookies have no expiry date and are never written to disk.
    public var isPersistent: Bool { expiresDate != nil }

    public func isExpired(at now: Date) -> Bool {
        guard let expiresDate else { return false }
        return expiresDate <= now
    }

    /// The jar identity of this cookie.
    public var identity: CookieIdentity {
        CookieIdentity(name: name, domain: domain, path: path, hostOnly: hostOnly)
    }

    /// `name=value`, or just `value` for a nameless cookie (6265bis §5.8.3 step 4).
    public var headerPair: String {
        name.isEmpty ? value : "\(name)=\(value)"
    }
}

/// The key under which the jar stores a cookie; setting a cookie with an equal identity replaces the old one.
public struct CookieIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: String
    public var domain: String
    public var path: String
    public var hostOnly: Bool

    public init(name: String, domain: String, path: String, hostOnly: Bool) {
        self.name = name
        self.domain = domain
        self.path = path
        self.hostOnly = hostOnly
    }

    public var description: String {
        "\(name) @ \(hostOnly ? "" : ".")\(domain)\(path)"
    }
}
