import Foundation
import HybridCookies

/// Conversions between the jar's cookies and the engine store's, and what counts as "the same cookie" across
/// them (the engine keeps whole seconds, and reports an unset SameSite as None).
extension EngineCookie {
    init(_ cookie: JarCookie) {
        let sameSite: EngineCookie.SameSite? =
            switch cookie.sameSite {
            case .strict: .strict
            case .lax: .lax
            case .none: EngineCookie.SameSite.none
            case .unspecified: nil
            }
        self.init(
            name: cookie.name, value: cookie.value, domain: cookie.hostOnly ? cookie.domain : "." + cookie.domain,
            path: cookie.path, expires: cookie.expiresDate, isSecure: cookie.secure, isHTTPOnly: cookie.httpOnly,
            sameSite: sameSite)
    }

    /// The jar's identity of this cookie (a leading dot marks a domain cookie).
    var key: EngineCookieKey { EngineCookieKey(name: name, domain: domain.lowercased(), path: path) }

    func jarCookie(now: Date) -> JarCookie {
        let lowered = domain.lowercased()
        let hostOnly = !lowered.hasPrefix(".")
        // libsoup (WebKitGTK) reports a cookie set without SameSite as None, so None here cannot be told from
        // "unspecified": the jar takes the stricter reading (Lax by default). A jar cookie that really is None is
        // not overwritten, because it compares equal (`isEquivalent`).
        let sameSite: CookieSameSite =
            switch self.sameSite {
            case .some(.strict): .strict
            case .some(.lax): .lax
            case .some(.none), nil: .unspecified
            }
        return JarCookie(
            name: name, value: value, domain: hostOnly ? lowered : String(lowered.dropFirst()),
            path: path.isEmpty ? "/" : path, hostOnly: hostOnly, secure: isSecure, httpOnly: isHTTPOnly,
            sameSite: sameSite, expiresDate: expires, creationDate: now)
    }

    /// Same cookie as far as a page or a server can tell.
    func isEquivalent(to other: EngineCookie) -> Bool {
        guard name == other.name, value == other.value, key == other.key, isSecure == other.isSecure,
            isHTTPOnly == other.isHTTPOnly
        else { return false }
        switch (expires, other.expires) {
        case (nil, nil): break
        case (let a?, let b?): guard abs(a.timeIntervalSince(b)) < 1.5 else { return false }
        default: return false
        }
        // libsoup stores "no SameSite" as None. (Spelled out: a bare `.none` after `??` would be Optional's nil.)
        let unset = EngineCookie.SameSite.none
        return (sameSite ?? unset) == (other.sameSite ?? unset)
    }
}

/// Name, domain (with its dot for domain cookies) and path: one cookie in either store.
struct EngineCookieKey: Hashable, Sendable {
    let name: String
    let domain: String
    let path: String
}
