import Foundation
import Synchronization

/// The native cookie jar: the single source of truth for cookies in a hybrid app (RFC 6265bis).
///
/// Thread-safe: all state sits behind one `Mutex`; observers are called after it is released,
/// on the thread that made the change, so they may call back into the jar.
public final class CookieJar: Sendable {
    public let configuration: CookieJarConfiguration
    let clock: CookieClock
    let parser: SetCookieParser
    let policy: CookieStoragePolicy
    let state: Mutex<CookieJarState>
    let observers = Mutex(CookieObserverRegistry())
    let store: (any CookieJarStore)?
    /// Serialises `flush()` and remembers the generation last written.
    let flushedGeneration = Mutex<UInt64>(0)

    public init(
        configuration: CookieJarConfiguration = CookieJarConfiguration(),
        store: (any CookieJarStore)? = nil,
        clock: @escaping CookieClock = systemCookieClock
    ) {
        self.configuration = configuration
        self.clock = clock
        self.parser = SetCookieParser(maxAge: configuration.maxCookieAge)
        self.policy = CookieStoragePolicy(configuration: configuration)
        self.state = Mutex(CookieJarState(publicSuffixList: configuration.publicSuffixList))
        self.store = store
    }

    // MARK: - Storing

    /// Applies one Set-Cookie header value received in the response to `request`.
    /// One value is one cookie; never pass several joined with commas (see `SetCookieHeaderSplitter`).
    @discardableResult
    public func setCookie(_ header: String, for request: CookieRequest) -> CookieSetResult {
        let now = clock()
        let parsed: ParsedSetCookie
        do {
            parsed = try parser.parse(header, now: now)
        } catch {
            return .rejected(error)
        }
        return store(parsed: parsed, request: request, now: now)
    }

    /// Applies every Set-Cookie header value of a response, in order.
    @discardableResult
    public func setCookies(_ headers: [String], for request: CookieRequest) -> [CookieSetResult] {
        headers.map { setCookie($0, for: request) }
    }

    func store(parsed: ParsedSetCookie, request: CookieRequest, now: Date) -> CookieSetResult {
        var changes: [CookieChange] = []
        let result = state.withLock { state -> CookieSetResult in
            let cookie: JarCookie
            do throws(CookieRejection) {
                cookie = try policy.makeCookie(from: parsed, request: request, now: now, state: state)
            } catch {
                return .rejected(error)
            }
            return commit(cookie, api: request.api, now: now, state: &state, changes: &changes)
        }
        notify(changes)
        return result
    }

    /// Stores an already-built cookie (e.g. synced from the engine or HTTPCookieStorage), replacing any
    /// cookie with the same identity. No origin checks: the caller vouches for it.
    @discardableResult
    public func upsert(_ cookie: JarCookie) -> CookieSetResult {
        let now = clock()
        var changes: [CookieChange] = []
        let result = state.withLock { state in
            commit(cookie, api: .http, now: now, state: &state, changes: &changes, keepGivenDates: true)
        }
        notify(changes)
        return result
    }

    /// 6265bis §5.7 final steps: HttpOnly overwrite check, keep creation time, insert or delete, evict.
    private func commit(
        _ newCookie: JarCookie, api: CookieAPI, now: Date, state: inout CookieJarState,
        changes: inout [CookieChange], keepGivenDates: Bool = false
    ) -> CookieSetResult {
        var cookie = newCookie
        let existing = state.cookie(for: cookie.identity)
        if let existing, existing.httpOnly, api == .nonHTTP {
            return .rejected(.wouldOverwriteHttpOnlyFromNonHTTPAPI)
        }

        if cookie.isExpired(at: now) {
            // Max-Age<=0 or a past Expires: this is how servers delete cookies.
            guard let removed = state.remove(cookie.identity) else { return .deleted(nil) }
            changes.append(CookieChange(kind: .removed, cause: .expired, cookie: removed))
            return .deleted(removed)
        }
        if let existing {
            cookie.creationDate = existing.creationDate
        } else if !keepGivenDates {
            cookie.creationDate = state.uniqueCreationDate(now)
        }
        state.insert(cookie)
        let result: CookieSetResult
        if let existing {
            changes.append(
                CookieChange(kind: .updated, cause: .overwritten, cookie: cookie, previous: existing))
            result = .replaced(cookie, previous: existing)
        } else {
            changes.append(CookieChange(kind: .added, cause: .explicit, cookie: cookie))
            result = .stored(cookie)
        }
        CookieEviction(configuration: configuration)
            .enforceLimits(after: cookie, now: now, state: &state, changes: &changes)
        return result
    }

    // MARK: - Retrieving

    /// The cookies to send with `request`, in Cookie-header order (6265bis §5.8.3):
    /// longer paths first, then earlier creation. Updates their last-access time.
    public func cookies(for request: CookieRequest) -> [JarCookie] {
        guard let host = CookieDomain.canonicalHost(of: request.url) else { return [] }
        let now = clock()
        let requestPath = CookieDomain.requestPath(of: request.url)
        let isSecure = configuration.isSecure(request.url)
        var changes: [CookieChange] = []
        let selected = state.withLock { state -> [JarCookie] in
            var selected: [JarCookie] = []
            var expired: [CookieIdentity] = []
            for domain in state.candidateDomains(forHost: host) {
                guard let bucket = state.cookies(inBucket: domain) else { continue }
                for cookie in bucket {
                    if cookie.isExpired(at: now) {
                        expired.append(cookie.identity)
                        continue
                    }
                    if cookie.hostOnly && cookie.domain != host { continue }
                    if cookie.secure && !isSecure { continue }
                    if cookie.httpOnly && request.api == .nonHTTP { continue }
                    if !sameSiteAllows(cookie, request.sameSiteContext) { continue }
                    if !CookieDomain.pathMatches(requestPath: requestPath, cookiePath: cookie.path) {
                        continue
                    }
                    selected.append(cookie)
                }
            }
            for identity in expired {
                if let removed = state.remove(identity) {
                    changes.append(CookieChange(kind: .removed, cause: .expired, cookie: removed))
                }
            }
            for cookie in selected
            where now.timeIntervalSince(cookie.lastAccessDate) >= configuration.lastAccessUpdateInterval {
                state.touch(cookie.identity, at: now)
            }
            return selected
        }
        notify(changes)
        return selected.sorted(by: Self.headerOrder)
    }

    /// The Cookie request header value for `request`, or `nil` when no cookie applies.
    public func cookieHeader(for request: CookieRequest) -> String? {
        let cookies = cookies(for: request)
        guard !cookies.isEmpty else { return nil }
        return cookies.map(\.headerPair).joined(separator: "; ")
    }

    static func headerOrder(_ a: JarCookie, _ b: JarCookie) -> Bool {
        let lengthA = a.path.utf8.count
        let lengthB = b.path.utf8.count
        if lengthA != lengthB { return lengthA > lengthB }
        return a.creationDate < b.creationDate
    }

    /// 6265bis §5.8.3 step 1: SameSite filtering.
    private func sameSiteAllows(_ cookie: JarCookie, _ context: SameSiteContext) -> Bool {
        switch context {
        case .sameSite:
            return true
        case .crossSite:
            return !policy.enforcesSameSite(cookie.sameSite)
        case .crossSiteTopLevelNavigation(let method):
            switch cookie.sameSite {
            case .strict: return false
            case .none: return true
            case .lax, .unspecified:
                return !policy.enforcesSameSite(cookie.sameSite) || SameSiteContext.isSafeMethod(method)
            }
        }
    }

    // MARK: - Inspection

    /// Every cookie in the jar (including not-yet-purged expired ones), in no particular order.
    public func allCookies() -> [JarCookie] {
        state.withLock { $0.allCookies }
    }

    public var count: Int {
        state.withLock { $0.count }
    }

    public func cookie(for identity: CookieIdentity) -> JarCookie? {
        state.withLock { $0.cookie(for: identity) }
    }

    // MARK: - Observation plumbing

    func notify(_ changes: [CookieChange]) {
        guard !changes.isEmpty else { return }
        let handlers = observers.withLock { $0.handlers }
        guard !handlers.isEmpty else { return }
        for change in changes {
            for handler in handlers { handler(change) }
        }
    }
}
