import Foundation

/// Why the jar ignored a cookie. Every case maps to one "abort these steps" of RFC 6265bis.
public enum CookieRejection: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    case controlCharacter
    case nameValueTooLong
    case emptyNameAndValue
    case urlHasNoHost(String)
    case nonASCIIHost(String)
    case nonASCIIDomainAttribute(String)
    case domainIsPublicSuffix(domain: String)
    case domainDoesNotMatchHost(domain: String, host: String)
    case secureFromInsecureURL
    case httpOnlyFromNonHTTPAPI
    case wouldOverwriteSecureCookieFromInsecureURL
    case wouldOverwriteHttpOnlyFromNonHTTPAPI
    case sameSiteFromCrossSiteContext
    case sameSiteNoneWithoutSecure
    case securePrefixRequirementsNotMet
    case hostPrefixRequirementsNotMet
    case namelessCookieWithPrefixedValue

    public var description: String {
        switch self {
        case .controlCharacter:
            return
                "Set-Cookie contains a control character (other than tab); the whole header is ignored."
        case .nameValueTooLong:
            return
                "Cookie name plus value exceed \(SetCookieParser.maxNameValueLength) bytes; shorten the value."
        case .emptyNameAndValue:
            return "Cookie has neither a name nor a value."
        case .urlHasNoHost(let url):
            return "Cannot store cookies for '\(url)': the URL has no host."
        case .nonASCIIHost(let host):
            return
                "Host '\(host)' is not ASCII; pass URLs whose host is punycoded (URL(string:) does that)."
        case .nonASCIIDomainAttribute(let domain):
            return
                "Domain attribute '\(domain)' is not ASCII; servers must send the punycoded (xn--) form."
        case .domainIsPublicSuffix(let domain):
            return "Domain=\(domain) is a public suffix; a cookie may not be set for a whole suffix."
        case .domainDoesNotMatchHost(let domain, let host):
            return "Domain=\(domain) does not domain-match the request host '\(host)'."
        case .secureFromInsecureURL:
            return "A Secure cookie can only be set from a secure (https) URL."
        case .httpOnlyFromNonHTTPAPI:
            return "An HttpOnly cookie cannot be set from a non-HTTP API such as document.cookie."
        case .wouldOverwriteSecureCookieFromInsecureURL:
            return
                "An insecure URL may not overwrite or shadow a Secure cookie of the same name (strict secure cookies)."
        case .wouldOverwriteHttpOnlyFromNonHTTPAPI:
            return "A non-HTTP API (document.cookie) may not overwrite an HttpOnly cookie."
        case .sameSiteFromCrossSiteContext:
            return "A SameSite=Strict/Lax cookie cannot be set from a cross-site context."
        case .sameSiteNoneWithoutSecure:
            return "SameSite=None requires the Secure attribute."
        case .securePrefixRequirementsNotMet:
            return "A __Secure- cookie must have the Secure attribute and come from a secure URL."
        case .hostPrefixRequirementsNotMet:
            return "A __Host- cookie must be Secure, have no Domain attribute, and have Path=/."
        case .namelessCookieWithPrefixedValue:
            return "A nameless cookie may not have a value starting with __Secure- or __Host-."
        }
    }

    public var errorDescription: String? { description }
}
