/// The SameSite attribute as stored (6265bis "same-site-flag").
public enum CookieSameSite: String, Sendable, Hashable, Codable, CaseIterable {
    case strict
    case lax
    case none
    /// No (or an unrecognised) SameSite attribute: 6265bis "Default". How it is enforced is
    /// `CookieJarConfiguration.unspecifiedSameSiteEnforcement`.
    case unspecified
}
