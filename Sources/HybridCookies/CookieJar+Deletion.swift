import Foundation

extension CookieJar {
    /// Deletes the cookie(s) named `name` at exactly `domain` and `path`. With `hostOnly == nil`
    /// both the host-only and the Domain-attribute variant go. Returns what was removed.
    @discardableResult
    public func deleteCookie(name: String, domain: String, path: String, hostOnly: Bool? = nil)
        -> [JarCookie]
    {
        let domain = Self.normalizedDomain(domain)
        let variants = hostOnly.map { [$0] } ?? [true, false]
        return remove(cause: .explicit) { state in
            variants.map { CookieIdentity(name: name, domain: domain, path: path, hostOnly: $0) }
        }
    }

    /// Deletes every cookie whose domain is `domain` or (with `includingSubdomains`) below it.
    @discardableResult
    public func deleteCookies(forDomain domain: String, includingSubdomains: Bool = true) -> [JarCookie] {
        let domain = Self.normalizedDomain(domain)
        return remove(cause: .explicit) { state in
            let related =
                includingSubdomains
                ? state.cookies(inSiteOf: domain) : (state.cookies(inBucket: domain).map(Array.init) ?? [])
            return related.filter { cookie in
                cookie.domain == domain
                    || (includingSubdomains
                        && CookieDomain.domainMatches(host: cookie.domain, domain: domain))
            }.map(\.identity)
        }
    }

    /// Empties the jar.
    @discardableResult
    public func deleteAll() -> [JarCookie] {
        remove(cause: .explicit) { state in state.allCookies.map(\.identity) }
    }

    /// Removes every expired cookie now (lookups also purge the expired cookies they meet).
    @discardableResult
    public func purgeExpired() -> [JarCookie] {
        let now = clock()
        return remove(cause: .expired) { state in
            state.allCookies.filter { $0.isExpired(at: now) }.map(\.identity)
        }
    }

    private func remove(
        cause: CookieChange.Cause, selecting: (borrowing CookieJarState) -> [CookieIdentity]
    ) -> [JarCookie] {
        let removed = state.withLock { state -> [JarCookie] in
            selecting(state).compactMap { state.remove($0) }
        }
        notify(removed.map { CookieChange(kind: .removed, cause: cause, cookie: $0) })
        return removed
    }

    static func normalizedDomain(_ domain: String) -> String {
        let lowered = domain.lowercased()
        return lowered.hasPrefix(".") ? String(lowered.dropFirst()) : lowered
    }
}
