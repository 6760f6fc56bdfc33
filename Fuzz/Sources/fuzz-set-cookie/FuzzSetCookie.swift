import Foundation
import FuzzSupport
import HybridCookies

/// Fuzzes the Set-Cookie path: the header splitter (for stacks that join headers with ", "), the parser, and the
/// jar's storage model on top (domain, path, public suffixes, prefixes). The first byte picks the request URL;
/// the rest is the header as a server or a page's `document.cookie` sent it.
private let urls = [
    "https://app.example.com/shop/cart", "http://example.com/", "https://a.b.example.co.uk/x/y/z",
    "https://127.0.0.1:8443/", "http://localhost/a", "https://xn--bcher-kva.example/",
].compactMap(URL.init(string:))
private let now = Date(timeIntervalSince1970: 1_750_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSetCookie(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let url = urls[Int(input.byte()) % urls.count]
    let header = input.restString()
    let parser = SetCookieParser()

    let pieces = SetCookieHeaderSplitter.split(header)
    require(pieces.count <= header.utf8.count + 1, "split \(header.utf8.count) bytes into \(pieces.count) headers")
    for piece in pieces + [header] {
        guard let cookie = try? parser.parse(piece, now: now) else { continue }
        // A cookie's name and value never carry the separators or controls that would let them smuggle another
        // cookie or attribute into a Cookie header.
        for text in [cookie.name, cookie.value] {
            require(
                !text.utf8.contains(UInt8(ascii: ";")), "';' in \(text.debugDescription) from \(piece.debugDescription)"
            )
            require(
                !text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F },
                "control character in \(text.debugDescription)")
        }
        require(!cookie.name.contains("="), "'=' in the name \(cookie.name.debugDescription)")
        require(!(cookie.name.isEmpty && cookie.value.isEmpty), "empty name and value accepted")
        require(
            cookie.name.utf8.count + cookie.value.utf8.count <= SetCookieParser.maxNameValueLength,
            "name and value over the limit")
        if let domain = cookie.domain {
            // 6265bis §5.6.3 drops one leading dot: `Domain=..x` parses to ".x", which the storage model refuses
            // (checked on the jar below).
            require(domain == domain.lowercased(), "domain not lower-cased: \(domain.debugDescription)")
        }
        // Bytes, not Characters: "/" followed by a combining mark is one Character that is not "/".
        if let path = cookie.path {
            require(path.isEmpty || path.utf8.first == UInt8(ascii: "/"), "path \(path.debugDescription)")
        }
        if let expiry = cookie.effectiveExpiry {
            require(
                expiry <= now.addingTimeInterval(SetCookieParser.defaultMaxAge + 1),
                "expiry \(expiry) past the 400-day cap")
        }
    }

    // The jar: what it stores is a cookie the request's host may set, with a path and no leading dot.
    let jar = CookieJar(clock: { now })
    let host = url.host?.lowercased() ?? ""
    for result in jar.setCookies(pieces, for: CookieRequest(url: url)) {
        guard case .stored(let stored) = result else { continue }
        require(stored.path.utf8.first == UInt8(ascii: "/"), "stored path \(stored.path.debugDescription)")
        require(!stored.domain.hasPrefix("."), "stored domain \(stored.domain.debugDescription)")
        require(
            stored.domain == host || host.hasSuffix("." + stored.domain),
            "\(host) stored a cookie for \(stored.domain)")
        require(!stored.name.utf8.contains(UInt8(ascii: ";")), "stored name with ';'")
        if stored.secure { require(CookieJarConfiguration().isSecure(url), "a Secure cookie from an insecure \(url)") }
    }
    if let cookieHeader = jar.cookieHeader(for: CookieRequest(url: url)) {
        require(
            !cookieHeader.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" },
            "control character in the Cookie header")
    }
    return 0
}
