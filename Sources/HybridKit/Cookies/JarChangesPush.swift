import Foundation
import HybridCookies

/// The jar's cookies as they were, so that what changed since (a response's `Set-Cookie` applied to the jar)
/// can be written to the engine's store before the page sees the response: the engine's own load or `fetch`
/// would have stored them before the page could read them, and `EngineCookieSync` alone would get there later.
///
/// Used by the network-page hand-over (a document's cookies) and by network pages' answers from a prefetch.
struct JarChangesPush: Sendable {
    private let before: [EngineCookieKey: JarCookie]

    /// Takes the snapshot now.
    init(jar: CookieJar) { before = Self.snapshot(jar) }

    /// Writes what changed in `jar` since the snapshot to `store`, deletions included.
    func push(_ jar: CookieJar, to store: any EngineCookieStore) async throws(EngineError) {
        let after = Self.snapshot(jar)
        for (key, cookie) in after where before[key] != cookie { try await store.setCookie(EngineCookie(cookie)) }
        for (key, cookie) in before where after[key] == nil { try await store.deleteCookie(EngineCookie(cookie)) }
    }

    private static func snapshot(_ jar: CookieJar) -> [EngineCookieKey: JarCookie] {
        Dictionary(jar.allCookies().map { (EngineCookie($0).key, $0) }) { first, _ in first }
    }
}
