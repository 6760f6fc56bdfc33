import Foundation

/// Turns what people type or servers send (`https://例え.jp/商品 一覧?q=鞋 子`) into a URL the engine loads
/// as meant: path, query and fragment percent-encoded as UTF-8, sequences already encoded kept as they are
/// (never `%25`-encoded twice), international host names converted to Punycode by Foundation (URLs with
/// Chinese characters or spaces fail to load unless encoded first).
public enum WebURLBuilder {
    public static func url(_ text: String) throws(WebURLError) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = trimmed.firstIndex(of: ":") else { throw .noScheme(text) }
        let scheme = trimmed[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { throw .noScheme(text) }
        var rest = trimmed[trimmed.index(after: colon)...]
        var result = scheme.lowercased() + ":"

        // The fragment and the query, split off first so their '?' and '/' stay theirs.
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        if rest.hasPrefix("//") {
            let afterSlashes = rest.dropFirst(2)
            let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            result += "//" + (try authority(afterSlashes[..<end], in: text))
            rest = afterSlashes[end...]
        }
        result += encode(rest, keeping: pathCharacters)
        if let query { result += "?" + encode(query, keeping: queryCharacters) }
        if let fragment { result += "#" + encode(fragment, keeping: queryCharacters) }
        guard let url = URL(string: result) else { throw .unparsable(text) }
        return url
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    private static let subDelimiters = Set("!$&'()*+,;=".utf8)
    private static let pathCharacters = unreserved.union(subDelimiters).union(":@/".utf8)
    private static let queryCharacters = pathCharacters.union("?".utf8)
    private static let userCharacters = unreserved.union(subDelimiters).union(":".utf8)

    /// Percent-encodes every byte outside `keeping`; a '%' followed by two hex digits is an escape already made.
    private static func encode(_ text: Substring, keeping allowed: Set<UInt8>) -> String {
        let bytes = Array(text.utf8)
        var out = ""
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                isHex(bytes[index + 1]), isHex(bytes[index + 2])
            {
                out += "%" + String(UnicodeScalar(bytes[index + 1])) + String(UnicodeScalar(bytes[index + 2]))
                index += 3
                continue
            }
            if allowed.contains(byte) {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
            index += 1
        }
        return out
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func authority(_ text: Substring, in original: String) throws(WebURLError) -> String {
        var hostPort = text
        var userInfo = ""
        if let at = text.lastIndex(of: "@") {
            userInfo = encode(text[..<at], keeping: userCharacters) + "@"
            hostPort = text[text.index(after: at)...]
        }
        // IPv6 literals keep their brackets and colons.
        if hostPort.hasPrefix("[") { return userInfo + String(hostPort) }
        var host = hostPort
        var port = ""
        if let colon = hostPort.lastIndex(of: ":") {
            let digits = hostPort[hostPort.index(after: colon)...]
            guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { throw .badHost(original) }
            port = ":" + digits
            host = hostPort[..<colon]
        }
        return userInfo + (try asciiHost(host, in: original)) + port
    }

    /// IDNA (UTS 46 mapping, then Punycode per label) is Foundation's: `URL` converts international host names.
    private static func asciiHost(_ host: Substring, in original: String) throws(WebURLError) -> String {
        let decoded = host.removingPercentEncoding ?? String(host)
        if decoded.isEmpty { return "" }  // file:///path
        guard !decoded.contains(where: { $0.isWhitespace || " <>\"{}|\\^`%/?#@:".contains($0) }),
            let ascii = URL(string: "http://\(decoded)/")?.host, ascii.allSatisfy(\.isASCII)
        else { throw .badHost(original) }
        return ascii.lowercased()
    }
}

/// Why text could not become a URL.
public enum WebURLError: Error, Sendable, Equatable, CustomStringConvertible {
    case noScheme(String)
    case badHost(String)
    case unparsable(String)

    public var description: String {
        switch self {
        case .noScheme(let text): "'\(text)' has no scheme; write it as https://…"
        case .badHost(let text): "'\(text)' has a host name that cannot be used (spaces, symbols, or a bad port)"
        case .unparsable(let text): "'\(text)' cannot be made into a URL even after encoding"
        }
    }
}
