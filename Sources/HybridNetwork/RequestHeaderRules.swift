import HybridKit

/// The Fetch standard's rules for what a page may put in a request
/// (https://fetch.spec.whatwg.org/#forbidden-request-header, #forbidden-method): the proxy applies them because a
/// page that calls native networking must not gain what the engine would never let it do.
enum RequestHeaderRules {
    static let forbiddenNames: Set<String> = [
        "accept-charset", "accept-encoding", "access-control-request-headers", "access-control-request-method",
        "access-control-request-private-network", "connection", "content-length", "cookie", "cookie2", "date", "dnt",
        "expect", "host", "keep-alive", "origin", "referer", "set-cookie", "te", "trailer", "transfer-encoding",
        "upgrade", "via",
        // The proxy sends its configured user agent, the same one the engine uses (see ProxyPolicy.userAgent).
        "user-agent",
    ]
    static let forbiddenPrefixes = ["proxy-", "sec-", "access-control-request-"]
    static let methodOverrideNames: Set<String> = ["x-http-method", "x-http-method-override", "x-method-override"]
    static let forbiddenMethods: Set<String> = ["CONNECT", "TRACE", "TRACK"]
    /// Methods Fetch upper-cases whatever case the page used.
    static let normalizedMethods: Set<String> = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]

    /// The page's headers minus forbidden and malformed ones (a value with CR or LF would smuggle a header).
    static func allowed(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        headers.compactMap { header in
            let lower = header.name.lowercased()
            guard HTTPToken.isToken(header.name), !forbiddenNames.contains(lower),
                !forbiddenPrefixes.contains(where: { lower.hasPrefix($0) })
            else { return nil }
            let value = header.value.trimmingCharacters(in: [" ", "\t"])
            guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else { return nil }
            if methodOverrideNames.contains(lower),
                value.split(separator: ",").contains(where: {
                    forbiddenMethods.contains($0.trimmingCharacters(in: .whitespaces).uppercased())
                })
            {
                return nil
            }
            return (header.name, value)
        }
    }

    /// The method to send, or nil when the page may not use it (or it is not a token).
    static func method(_ method: String) -> String? {
        guard HTTPToken.isToken(method) else { return nil }
        let upper = method.uppercased()
        if forbiddenMethods.contains(upper) { return nil }
        return normalizedMethods.contains(upper) ? upper : method
    }
}
