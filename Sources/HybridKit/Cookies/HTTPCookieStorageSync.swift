import Foundation
import HybridCookies
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps a Foundation `HTTPCookieStorage` (the one the host's own URLSession networking uses, `.shared` by
/// default) in step with the jar, both ways, so native requests made outside HybridKit see the page's cookies and
/// the page sees theirs.
///
/// Jar → storage on every jar change (deletions and expiry included); storage → jar when the storage posts
/// `NSHTTPCookieManagerCookiesChanged` (Apple platforms post it for every change) and whenever
/// ``pullFromStorage()`` is called (swift-corelibs-foundation does not post it: call it after native requests).
/// A mirror of what the storage holds stops echoes, as in ``EngineCookieSync``.
public final class HTTPCookieStorageSync: Sendable {
    public let jar: CookieJar
    private let storage: StorageBox
    private let mirror = Mutex<[EngineCookieKey: EngineCookie]>([:])
    private let observation = Mutex<CookieObservation?>(nil)
    private let notificationToken = Mutex<NotificationToken?>(nil)

    public init(jar: CookieJar, storage: HTTPCookieStorage = .shared) {
        self.jar = jar
        self.storage = StorageBox(storage: storage)
    }

    /// Copies the jar into the storage, adopts cookies only the storage has, then follows both sides.
    public func start() {
        let jarKeys = Set(jar.allCookies().map { EngineCookie($0).key })
        pullFromStorage(adoptingOnly: true, except: jarKeys)
        let now = Date()
        for cookie in jar.allCookies() where !cookie.isExpired(at: now) { push(cookie, removed: false) }
        observation.withLock { current in
            guard current == nil else { return }
            current = jar.addObserver { [weak self] change in
                self?.push(change.cookie, removed: change.kind == .removed)
            }
        }
        let token = NotificationCenter.default.addObserver(
            forName: .NSHTTPCookieManagerCookiesChanged, object: storage.storage, queue: nil
        ) { [weak self] _ in self?.pullFromStorage() }
        notificationToken.withLock { $0 = NotificationToken(token) }
    }

    /// Stops following both sides.
    public func stop() {
        observation.withLock { $0 = nil }
        notificationToken.withLock { $0 = nil }
    }

    /// Copies into the jar what the storage changed since this sync last looked (additions, updates, deletions).
    public func pullFromStorage() {
        pullFromStorage(adoptingOnly: false, except: [])
    }

    private func pullFromStorage(adoptingOnly: Bool, except skipped: Set<EngineCookieKey>) {
        let now = Date()
        let current = (storage.storage.cookies ?? []).map { JarCookie(httpCookie: $0, now: now) }
        var upserts: [JarCookie] = []
        var removals: [EngineCookie] = []
        mirror.withLock { mirror in
            var seen: Set<EngineCookieKey> = []
            for cookie in current {
                let engineCookie = EngineCookie(cookie)
                seen.insert(engineCookie.key)
                if skipped.contains(engineCookie.key) { continue }
                if let known = mirror[engineCookie.key], known.isEquivalent(to: engineCookie) { continue }
                mirror[engineCookie.key] = engineCookie
                upserts.append(cookie)
            }
            guard !adoptingOnly else { return }
            for (key, gone) in mirror where !seen.contains(key) {
                mirror[key] = nil
                removals.append(gone)
            }
        }
        // Outside the lock: the jar calls its observers (this sync among them) synchronously.
        for cookie in upserts {
            if cookie.isExpired(at: now) {
                jar.deleteCookie(name: cookie.name, domain: cookie.domain, path: cookie.path, hostOnly: cookie.hostOnly)
            } else {
                jar.upsert(cookie)
            }
        }
        for gone in removals {
            let cookie = gone.jarCookie(now: now)
            jar.deleteCookie(name: cookie.name, domain: cookie.domain, path: cookie.path, hostOnly: cookie.hostOnly)
        }
    }

    private func push(_ cookie: JarCookie, removed: Bool) {
        let engineCookie = EngineCookie(cookie)
        let apply = mirror.withLock { mirror -> Bool in
            if removed { return mirror.removeValue(forKey: engineCookie.key) != nil }
            if let known = mirror[engineCookie.key], known.isEquivalent(to: engineCookie) { return false }
            mirror[engineCookie.key] = engineCookie
            return true
        }
        guard apply else { return }
        // Outside the lock: the storage may post its change notification synchronously.
        if removed {
            for stored in storage.storage.cookies ?? []
            where EngineCookie(JarCookie(httpCookie: stored)).key == engineCookie.key {
                storage.storage.deleteCookie(stored)
            }
        } else if let httpCookie = cookie.httpCookie {
            storage.storage.setCookie(httpCookie)
        }
    }
}

/// `HTTPCookieStorage` is thread-safe but not annotated `Sendable` on every platform.
private struct StorageBox: @unchecked Sendable {
    let storage: HTTPCookieStorage
}

/// Removes a NotificationCenter observer when released.
private final class NotificationToken: @unchecked Sendable {
    // NSObjectProtocol tokens are immutable handles; NotificationCenter is thread-safe.
    private let token: any NSObjectProtocol

    init(_ token: any NSObjectProtocol) { self.token = token }

    deinit { NotificationCenter.default.removeObserver(token) }
}
