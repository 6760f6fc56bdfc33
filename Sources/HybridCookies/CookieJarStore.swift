import Foundation
import Synchronization

/// Where a jar's persistent cookies live between launches.
public protocol CookieJarStore: Sendable {
    /// The stored cookies; an empty array when nothing was ever saved.
    func load() throws(CookieJarStoreError) -> [JarCookie]
    /// Replaces the stored cookies with `cookies`, atomically: after a crash at any point, `load()`
    /// returns either the previous or the new set, never a mix or nothing.
    func save(_ cookies: [JarCookie]) throws(CookieJarStoreError)
    /// Moves unreadable data aside so a fresh jar can start; returns where it went, if anywhere.
    func quarantineCorruptData() throws(CookieJarStoreError) -> String?
}

extension CookieJarStore {
    public func quarantineCorruptData() throws(CookieJarStoreError) -> String? { nil }
}

/// Keeps the "persisted" cookies in memory: for tests and for apps that want no disk state.
public final class InMemoryCookieJarStore: CookieJarStore {
    private let saved: Mutex<[JarCookie]>

    public init(_ cookies: [JarCookie] = []) {
        saved = Mutex(cookies)
    }

    public func load() throws(CookieJarStoreError) -> [JarCookie] { saved.withLock { $0 } }

    public func save(_ cookies: [JarCookie]) throws(CookieJarStoreError) {
        saved.withLock { $0 = cookies }
    }
}
