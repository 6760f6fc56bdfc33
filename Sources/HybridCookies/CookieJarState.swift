import Foundation

/// The jar's data, only ever touched under `CookieJar`'s lock.
///
/// Cookies live in buckets keyed by their domain, so a lookup for `a.b.example.com` probes just the
/// buckets `a.b.example.com`, `b.example.com`, `example.com` and `com` — no scan, no PSL lookup.
/// A second index groups bucket domains by site (eTLD+1) for the per-domain limit and for the
/// strict-secure check, which must look at related domains in both directions.
struct CookieJarState {
    private(set) var buckets: [String: [CookieIdentity: JarCookie]] = [:]
    private(set) var domainsBySite: [String: Set<String>] = [:]
    private(set) var countBySite: [String: Int] = [:]
    private(set) var count = 0
    /// Bumped by every change that matters on disk; `flush()` compares it with the last write.
    private(set) var generation: UInt64 = 0
    /// Creation times are made strictly increasing so header order is total and stable.
    private var lastCreationDate = Date.distantPast
    let publicSuffixList: PublicSuffixList?

    init(publicSuffixList: PublicSuffixList?) {
        self.publicSuffixList = publicSuffixList
    }

    func site(ofDomain domain: String) -> String {
        publicSuffixList?.registrableDomain(of: domain) ?? domain
    }

    mutating func uniqueCreationDate(_ now: Date) -> Date {
        let date = now > lastCreationDate ? now : lastCreationDate.addingTimeInterval(0.000_001)
        lastCreationDate = date
        return date
    }

    func cookie(for identity: CookieIdentity) -> JarCookie? {
        buckets[identity.domain]?[identity]
    }

    /// Inserts or replaces by identity; returns the replaced cookie.
    @discardableResult
    mutating func insert(_ cookie: JarCookie) -> JarCookie? {
        let identity = cookie.identity
        if cookie.creationDate > lastCreationDate { lastCreationDate = cookie.creationDate }
        generation &+= 1
        let previous = buckets[cookie.domain, default: [:]].updateValue(cookie, forKey: identity)
        if previous == nil {
            count += 1
            let site = site(ofDomain: cookie.domain)
            countBySite[site, default: 0] += 1
            domainsBySite[site, default: []].insert(cookie.domain)
        }
        return previous
    }

    @discardableResult
    mutating func remove(_ identity: CookieIdentity) -> JarCookie? {
        guard let removed = buckets[identity.domain]?.removeValue(forKey: identity) else { return nil }
        generation &+= 1
        count -= 1
        let site = site(ofDomain: identity.domain)
        countBySite[site, default: 1] -= 1
        if countBySite[site] == 0 { countBySite[site] = nil }
        if buckets[identity.domain]?.isEmpty == true {
            buckets[identity.domain] = nil
            domainsBySite[site]?.remove(identity.domain)
            if domainsBySite[site]?.isEmpty == true { domainsBySite[site] = nil }
        }
        return removed
    }

    mutating func removeAll() {
        if count > 0 { generation &+= 1 }
        buckets = [:]
        domainsBySite = [:]
        countBySite = [:]
        count = 0
    }

    mutating func touch(_ identity: CookieIdentity, at date: Date) {
        buckets[identity.domain]?[identity]?.lastAccessDate = date
    }

    /// The bucket domains a request to `host` can receive cookies from: the host and its parents.
    func candidateDomains(forHost host: String) -> [String] {
        if CookieDomain.isIPAddress(host) { return [host] }
        var result = [host]
        var index = host.utf8.startIndex
        while index < host.utf8.endIndex {
            if host.utf8[index] == UInt8(ascii: ".") {
                let next = host.utf8.index(after: index)
                if next < host.utf8.endIndex { result.append(String(host[next...])) }
            }
            index = host.utf8.index(after: index)
        }
        return result
    }

    func cookies(inBucket domain: String) -> Dictionary<CookieIdentity, JarCookie>.Values? {
        buckets[domain]?.values
    }

    /// Every cookie whose domain shares `domain`'s site (eTLD+1).
    func cookies(inSiteOf domain: String) -> [JarCookie] {
        let site = site(ofDomain: domain)
        guard let domains = domainsBySite[site] else { return [] }
        return domains.flatMap { buckets[$0].map { Array($0.values) } ?? [] }
    }

    func count(inSiteOf domain: String) -> Int {
        countBySite[site(ofDomain: domain)] ?? 0
    }

    var allCookies: [JarCookie] {
        buckets.values.flatMap { $0.values }
    }
}
