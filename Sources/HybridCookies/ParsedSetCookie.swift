import Foundation

/// The result of parsing one Set-Cookie header value (6265bis §5.6), before the storage model
/// (domain, path defaults, security checks) is applied. Attributes follow "last one wins".
public struct ParsedSetCookie: Sendable, Hashable {
    public var name: String
    public var value: String
    /// The last valid Expires attribute, already capped to the cookie age limit.
    public var expires: Date?
    /// The expiry computed from the last valid Max-Age; takes precedence over `expires`.
    public var maxAgeExpiry: Date?
    /// Last Domain attribute: lower-cased, leading dot removed. `nil` when absent.
    public var domain: String?
    /// Last Path attribute. `""` means a Path attribute was present but invalid (empty or not
    /// starting with "/"), so the default-path applies; `nil` means no Path attribute at all.
    public var path: String?
    public var secure: Bool
    public var httpOnly: Bool
    /// `nil` when there was no SameSite attribute; `.unspecified` for an unrecognised value.
    public var sameSite: CookieSameSite?

    public init(
        name: String, value: String, expires: Date? = nil, maxAgeExpiry: Date? = nil,
        domain: String? = nil,
        path: String? = nil, secure: Bool = false, httpOnly: Bool = false,
        sameSite: CookieSameSite? = nil
    ) {
        self.name = name
        self.value = value
        self.expires = expires
        self.maxAgeExpiry = maxAgeExpiry
        self.domain = domain
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// Max-Age wins over Expires (6265bis §5.7 step 3); `nil` means a session cookie.
    public var effectiveExpiry: Date? { maxAgeExpiry ?? expires }
}
