import Foundation

/// Turns a parsed Set-Cookie into a cookie ready to store, applying RFC 6265bis §5.7 steps in order.
/// Every "abort these steps" is a thrown `CookieRejection`; the jar is not modified here.
struct CookieStoragePolicy {
    let configuration: CookieJarConfiguration

    func makeCookie(
        from parsed: ParsedSetCookie,
        request: CookieRequest,
        now: Date,
        state: borrowing CookieJarState
    ) throws(CookieRejection) -> JarCookie {
        guard let host = CookieDomain.canonicalHost(of: request.url) else {
            throw .urlHasNoHost(request.url.absoluteString)
        }
        guard CookieDomain.isASCII(host) else { throw .nonASCIIHost(host) }
        let requestIsSecure = configuration.isSecure(request.url)

        // Steps 5–7: Domain attribute, public suffixes, domain-match.
        var domainAttribute = parsed.domain ?? ""
        if !domainAttribute.isEmpty {
            guard CookieDomain.isASCII(domainAttribute) else {
                throw .nonASCIIDomainAttribute(domainAttribute)
            }
            if let psl = configuration.publicSuffixList, psl.isPublicSuffix(domainAttribute) {
                // A host that is itself a public suffix may set a host-only cookie for itself.
                guard domainAttribute == host else { throw .domainIsPublicSuffix(domain: domainAttribute) }
                domainAttribute = ""
            }
        }
        let hostOnly: Bool
        let domain: String
        if domainAttribute.isEmpty {
            hostOnly = true
            domain = host
        } else {
            guard CookieDomain.domainMatches(host: host, domain: domainAttribute) else {
                throw .domainDoesNotMatchHost(domain: domainAttribute, host: host)
            }
            hostOnly = false
            domain = domainAttribute
        }

        // Step 8: path attribute or default-path.
        let path: String
        if let attribute = parsed.path, !attribute.isEmpty {
            path = attribute
        } else {
            path = CookieDomain.defaultPath(forRequestPath: CookieDomain.requestPath(of: request.url))
        }

        // Steps 9–12: Secure and HttpOnly.
        if parsed.secure && !requestIsSecure { throw .secureFromInsecureURL }
        if parsed.httpOnly && request.api == .nonHTTP { throw .httpOnlyFromNonHTTPAPI }

        // Step 13: strict secure cookies — an insecure origin may not shadow a Secure cookie.
        if !parsed.secure && !requestIsSecure {
            for existing in state.cookies(inSiteOf: domain)
            where existing.secure && existing.name == parsed.name
                && (CookieDomain.domainMatches(host: domain, domain: existing.domain)
                    || CookieDomain.domainMatches(host: existing.domain, domain: domain))
                && CookieDomain.pathMatches(requestPath: path, cookiePath: existing.path)
            {
                throw .wouldOverwriteSecureCookieFromInsecureURL
            }
        }

        // Steps 14–16: SameSite.
        let sameSite = parsed.sameSite ?? .unspecified
        if enforcesSameSite(sameSite) {
            switch (request.api, request.sameSiteContext) {
            case (_, .sameSite), (.http, .crossSiteTopLevelNavigation):
                break
            default:
                throw .sameSiteFromCrossSiteContext
            }
        }
        if sameSite == .none && configuration.requireSecureForSameSiteNone && !parsed.secure {
            throw .sameSiteNoneWithoutSecure
        }

        // Steps 17–19: name prefixes (matched case-insensitively, as current 6265bis does).
        if Self.hasPrefix(parsed.name, "__Secure-") && !parsed.secure {
            throw .securePrefixRequirementsNotMet
        }
        if Self.hasPrefix(parsed.name, "__Host-")
            && !(parsed.secure && hostOnly && parsed.path == "/")
        {
            throw .hostPrefixRequirementsNotMet
        }
        if parsed.name.isEmpty
            && (Self.hasPrefix(parsed.value, "__Secure-") || Self.hasPrefix(parsed.value, "__Host-"))
        {
            throw .namelessCookieWithPrefixedValue
        }

        return JarCookie(
            name: parsed.name, value: parsed.value, domain: domain, path: path, hostOnly: hostOnly,
            secure: parsed.secure, httpOnly: parsed.httpOnly, sameSite: sameSite,
            expiresDate: parsed.effectiveExpiry, creationDate: now, lastAccessDate: now)
    }

    /// Whether the same-site-flag is anything but "None" after applying the Default policy.
    func enforcesSameSite(_ sameSite: CookieSameSite) -> Bool {
        switch sameSite {
        case .strict, .lax: return true
        case .none: return false
        case .unspecified: return configuration.unspecifiedSameSiteEnforcement == .lax
        }
    }

    static func asciiLower(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        text.utf8.count >= prefix.utf8.count
            && text.utf8.prefix(prefix.utf8.count).elementsEqual(prefix.utf8) {
                asciiLower($0) == asciiLower($1)
            }
    }
}
