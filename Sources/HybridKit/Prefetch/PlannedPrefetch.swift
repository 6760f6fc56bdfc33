import Foundation

/// A declared request filled in for one page being opened: what is sent, and what a page's own request must
/// match to be answered with it.
struct PlannedPrefetch: Sendable, Equatable {
    var method: String
    var url: URL
    /// Declared headers, names lowercased, in a stable order.
    var headers: [(name: String, value: String)]
    var credentials: PrefetchRequest.Credentials

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.credentials == rhs.credentials
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The request native code sends.
    var request: EngineRequest {
        var request = EngineRequest(url: url, method: method)
        request.headers = headers
        return request
    }
}

/// Fills a ``PrefetchRequest``'s templates and checks what comes out against the site and the policy.
struct PrefetchPlanner: Sendable {
    let site: WebOrigin
    let policy: PrefetchPolicy

    /// Headers a declaration may not name: the jar, the network and the engine own them.
    static let forbiddenHeaders: Set<String> = [
        "cookie", "cookie2", "host", "origin", "referer", "content-length", "transfer-encoding", "connection",
        "keep-alive", "upgrade", "te", "trailer", "expect", "proxy-authorization", "proxy-connection",
    ]
    static let forbiddenHeaderPrefixes = ["sec-", "proxy-", "x-hybrid-"]

    /// Checks what can be checked before any value is known: method, header names, template shapes, counts.
    func check(_ declarations: PrefetchDeclarations) throws(PrefetchError) {
        guard declarations.pages.count <= policy.maximumPages else {
            throw .tooMany(what: "pages", count: declarations.pages.count, limit: policy.maximumPages)
        }
        for page in declarations.pages {
            guard page.requests.count <= policy.maximumRequestsPerPage else {
                throw .tooMany(
                    what: "requests for \(page.page)", count: page.requests.count,
                    limit: policy.maximumRequestsPerPage)
            }
            for request in page.requests { try check(request) }
        }
    }

    func check(_ request: PrefetchRequest) throws(PrefetchError) {
        let method = request.method.uppercased()
        guard method == "GET" || method == "HEAD" else { throw .methodNotAllowed(request.method) }
        guard request.headers.count <= Self.maximumHeaders else {
            throw .tooMany(what: "headers", count: request.headers.count, limit: Self.maximumHeaders)
        }
        for name in request.headers.keys { try Self.checkName(name) }
        _ = try Self.pieces(of: request.url)
        try checkOriginIsFixed(request.url)
    }

    static var maximumHeaders: Int { PrefetchPolicy.maximumHeadersPerRequest }

    /// Fills `request` for a page being opened at `page` (its http(s) URL) with `values`.
    func plan(_ request: PrefetchRequest, page: URL, values: [String: String]) throws(PrefetchError) -> PlannedPrefetch
    {
        try check(request)
        var all = values
        all["path"] = page.path(percentEncoded: true)
        for item in URLComponents(url: page, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            all["query." + item.name] = item.value ?? ""
        }
        let filled = try Self.fill(request.url, with: all, encode: Self.encodeURLValue)
        let absolute = filled.hasPrefix("/") ? site.description + filled : filled
        guard absolute.utf8.count <= PrefetchPolicy.maximumTemplateBytes else {
            throw .tooLarge(
                what: "the prefetch URL", bytes: absolute.utf8.count, limit: PrefetchPolicy.maximumTemplateBytes)
        }
        guard let url = URL(string: absolute), let origin = WebOrigin(url), origin == site, url.user == nil,
            url.password == nil
        else { throw .otherOrigin(template: request.url, site: site.description) }
        if !policy.allowsPrivateAddresses, Self.isPrivate(host: origin.host) {
            throw .privateAddress(host: origin.host)
        }
        var headers: [(name: String, value: String)] = []
        for (name, template) in request.headers.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            let value = try Self.fill(template, with: all) { $0 }
            guard value.utf8.count <= 1024 else {
                throw .tooLarge(what: "prefetch header \(name)", bytes: value.utf8.count, limit: 1024)
            }
            // Visible ASCII and spaces only: a CR or LF would start another header line.
            guard value.unicodeScalars.allSatisfy({ $0 == " " || $0 == "\t" || (0x21...0x7E).contains($0.value) })
            else { throw .headerInjection(name: name) }
            headers.append((name.lowercased(), value))
        }
        return PlannedPrefetch(
            method: request.method.uppercased(), url: url, headers: headers, credentials: request.credentials)
    }

    /// A relative template must be a path (`/…`, not `//host`); an absolute one must start with the site's origin
    /// and a `/` before any value, so no value can move it to another host or port.
    private func checkOriginIsFixed(_ template: String) throws(PrefetchError) {
        if template.hasPrefix("/") && !template.hasPrefix("//") && !template.hasPrefix("/\\") { return }
        let prefix = site.description + "/"
        let fixed = template.prefix { $0 != "{" }
        guard fixed.lowercased().hasPrefix(prefix.lowercased()) else {
            throw .otherOrigin(template: template, site: site.description)
        }
    }

    private static func checkName(_ name: String) throws(PrefetchError) {
        guard HTTPToken.isToken(name) else { throw .headerInjection(name: name) }
        let lower = name.lowercased()
        guard !forbiddenHeaders.contains(lower), !forbiddenHeaderPrefixes.contains(where: lower.hasPrefix) else {
            throw .forbiddenHeader(name: name)
        }
    }

    enum Piece: Equatable {
        case text(String)
        case value(String)
    }

    static func pieces(of template: String) throws(PrefetchError) -> [Piece] {
        guard template.utf8.count <= PrefetchPolicy.maximumTemplateBytes else {
            throw .tooLarge(
                what: "a prefetch template", bytes: template.utf8.count, limit: PrefetchPolicy.maximumTemplateBytes)
        }
        var pieces: [Piece] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { pieces.append(.text(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw .invalidTemplate(template: template, reason: "a '{' is never closed")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard !name.isEmpty, !name.contains("{") else {
                throw .invalidTemplate(template: template, reason: "'{\(name)}' is not a value name")
            }
            pieces.append(.value(name))
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { throw .invalidTemplate(template: template, reason: "a '}' was never opened") }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        return pieces
    }

    static func fill(_ template: String, with values: [String: String], encode: (String) -> String)
        throws(PrefetchError) -> String
    {
        var out = ""
        for piece in try pieces(of: template) {
            switch piece {
            case .text(let text): out += text
            case .value(let name):
                guard let value = values[name] else {
                    throw .invalidTemplate(
                        template: template,
                        reason:
                            "no value named '\(name)' (values: path, query.NAME, \(values.keys.filter { !$0.hasPrefix("query.") && $0 != "path" }.sorted().joined(separator: ", ")))"
                    )
                }
                out += name == "path" ? value : encode(value)
            }
        }
        return out
    }

    /// Unreserved characters only: a value cannot add a `/`, `?`, `#`, `@` or `:`.
    static func encodeURLValue(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// Loopback, private, link-local, unspecified and other non-public addresses, and names that mean this machine.
    ///
    /// Addresses are read as the resolver reads them (`inet_aton`, `inet_pton`), not as dotted quads only: the
    /// network stack takes `127.1`, `2130706433`, `0x7f.0.0.1` and `0177.0.0.1` for 127.0.0.1, and
    /// `0:0:0:0:0:0:0:1` for ::1, so a check that reads four decimal parts would let each of them by.
    static func isPrivate(host: String) -> Bool {
        var host = WebOrigin.normalizedHost(host)
        // A zone (fe80::1%eth0) names an interface of this machine's link.
        if let zone = host.firstIndex(of: "%") { host = String(host[..<zone]) }
        if host == "localhost" || host.hasSuffix(".localhost") || host.hasSuffix(".local") { return true }
        if host.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { return false }
            let bytes = withUnsafeBytes(of: &address) { Array($0) }
            // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, which also covers :: and ::1) carry an IPv4 address.
            if bytes[0..<10].allSatisfy({ $0 == 0 }),
                (bytes[10] == 0xFF && bytes[11] == 0xFF)
                    || (bytes[10] == 0 && bytes[11] == 0)
            {
                return bytes[10] == 0 || isPrivateIPv4(Array(bytes[12..<16]))
            }
            // Prefixes that translate to an IPv4 address (RFC 6052's 64:ff9b::/96 and RFC 8215's 64:ff9b:1::/48 on
            // a NAT64 network: the last four bytes; RFC 3056's 2002::/16, 6to4: bytes 2–5) reach that address.
            if bytes[0..<12] == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
                || bytes[0..<6] == [0, 0x64, 0xFF, 0x9B, 0, 1]
            {
                return isPrivateIPv4(Array(bytes[12..<16]))
            }
            if bytes[0] == 0x20, bytes[1] == 0x02, isPrivateIPv4(Array(bytes[2..<6])) { return true }
            // fc00::/7 unique local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast.
            return bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0x80 == 0x80) || bytes[0] == 0xFF
        }
        // Only names made of digits, dots and hex digits after 0x can be addresses; anything else is a name.
        var address = in_addr()
        guard host.first.map({ $0.isNumber }) == true, inet_aton(host, &address) != 0 else { return false }
        return isPrivateIPv4(withUnsafeBytes(of: &address) { Array($0) })
    }

    /// `bytes` in network order.
    private static func isPrivateIPv4(_ bytes: [UInt8]) -> Bool {
        let a = bytes[0]
        let b = bytes[1]
        return a == 127 || a == 10 || a == 0 || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
            || (a == 169 && b == 254) || (a == 100 && (64...127).contains(b)) || (a == 198 && (18...19).contains(b))
            || a >= 224
    }
}
