import Foundation

/// The on-disk document: versioned JSON so a future format can be recognised and migrated.
struct PersistedCookieJar: Codable {
    static let currentVersion = 1
    static let formatName = "hybridkit-cookie-jar"

    var format: String
    var version: Int
    var cookies: [JarCookie]
}
