import Foundation

/// Enforces the per-site and total limits after an insert: expired cookies go first, then the
/// least recently accessed. The cookie just stored is never the victim (it was just accessed).
struct CookieEviction {
    let configuration: CookieJarConfiguration

    func enforceLimits(
        after inserted: JarCookie, now: Date, state: inout CookieJarState, changes: inout [CookieChange]
    ) {
        if state.count(inSiteOf: inserted.domain) > configuration.maxCookiesPerDomain {
            let siteCookies = state.cookies(inSiteOf: inserted.domain)
            evict(
                from: siteCookies, keep: configuration.maxCookiesPerDomain, protecting: inserted.identity,
                now: now, state: &state, changes: &changes)
        }
        if state.count > configuration.maxCookies {
            evict(
                from: state.allCookies, keep: configuration.maxCookies, protecting: inserted.identity,
                now: now, state: &state, changes: &changes)
        }
    }

    /// Removes cookies from `candidates` until `keep` of them remain.
    private func evict(
        from candidates: [JarCookie], keep: Int, protecting: CookieIdentity, now: Date,
        state: inout CookieJarState, changes: inout [CookieChange]
    ) {
        var excess = candidates.count - keep
        guard excess > 0 else { return }
        // Expired first — all of them, they are dead anyway.
        var alive: [JarCookie] = []
        for cookie in candidates {
            if cookie.isExpired(at: now), let removed = state.remove(cookie.identity) {
                changes.append(CookieChange(kind: .removed, cause: .expired, cookie: removed))
                excess -= 1
            } else {
                alive.append(cookie)
            }
        }
        guard excess > 0 else { return }
        // Then least recently accessed; ties broken by older creation.
        alive.sort { a, b in
            a.lastAccessDate != b.lastAccessDate
                ? a.lastAccessDate < b.lastAccessDate : a.creationDate < b.creationDate
        }
        for cookie in alive where excess > 0 && cookie.identity != protecting {
            if let removed = state.remove(cookie.identity) {
                changes.append(CookieChange(kind: .removed, cause: .evicted, cookie: removed))
                excess -= 1
            }
        }
    }
}
