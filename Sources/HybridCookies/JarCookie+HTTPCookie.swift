import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Conversion to and from Foundation's `HTTPCookie`, for the `HTTPCookieStorage` adapter.
///
/// Foundation marks domain cookies with a leading dot (".example.com") and host-only cookies
/// without one; that is the mapping used here.
extension JarCookie {
    static let httpOnlyKey = HTTPCookiePropertyKey("HttpOnly")
    static let sameSiteKey = HTTPCookiePropertyKey("SameSite")
    static let createdKey = HTTPCookiePropertyKey("Created")

    /// The `HTTPCookie.properties` dictionary describing this cookie.
    public var httpCookieProperties: [HTTPCookiePropertyKey: Any] {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name,
            .value: value,
            .domain: hostOnly ? domain : "." + domain,
            .path: path,
            .version: "0",
        ]
        if secure { properties[.secure] = "TRUE" }
        if httpOnly { properties[Self.httpOnlyKey] = "TRUE" }
        if let expiresDate { properties[.expires] = expiresDate } else { properties[.discard] = "TRUE" }
        switch sameSite {
        case .strict: properties[Self.sameSiteKey] = "strict"
        case .lax: properties[Self.sameSiteKey] = "lax"
        case .none, .unspecified: break  // Foundation has no "None" policy: absence means no restriction.
        }
        properties[Self.createdKey] = creationDate.timeIntervalSinceReferenceDate
        return properties
    }

    /// This cookie as an `HTTPCookie`; `nil` if Foundation refuses it (e.g. a nameless cookie).
    public var httpCookie: HTTPCookie? {
        HTTPCookie(properties: httpCookieProperties)
    }

    /// A cookie from Foundation's representation. `now` is used when the creation time is unknown.
    public init(httpCookie: HTTPCookie, now: Date = Date()) {
        let rawDomain = httpCookie.domain.lowercased()
        let hostOnly = !rawDomain.hasPrefix(".")
        let properties = httpCookie.properties ?? [:]
        let sameSiteText =
            (properties[Self.sameSiteKey] as? String)?.lowercased() ?? Self.sameSitePolicyText(httpCookie)
        let sameSite: CookieSameSite
        switch sameSiteText {
        case "strict": sameSite = .strict
        case "lax": sameSite = .lax
        default: sameSite = .unspecified
        }
        var creation = now
        if let created = properties[Self.createdKey] as? Double {
            creation = Date(timeIntervalSinceReferenceDate: created)
        } else if let created = properties[Self.createdKey] as? NSNumber {
            creation = Date(timeIntervalSinceReferenceDate: created.doubleValue)
        }
        self.init(
            name: httpCookie.name,
            value: httpCookie.value,
            domain: hostOnly ? rawDomain : String(rawDomain.dropFirst()),
            path: httpCookie.path.isEmpty ? "/" : httpCookie.path,
            hostOnly: hostOnly,
            secure: httpCookie.isSecure,
            httpOnly: httpCookie.isHTTPOnly,
            sameSite: sameSite,
            expiresDate: httpCookie.isSessionOnly ? nil : httpCookie.expiresDate,
            creationDate: creation,
            lastAccessDate: now)
    }

    private static func sameSitePolicyText(_ cookie: HTTPCookie) -> String? {
        #if canImport(Darwin)
        if #available(macOS 10.15, iOS 13.0, *) {
            return cookie.sameSitePolicy?.rawValue.lowercased()
        }
        #endif
        return nil
    }
}
