import Foundation

/// Parses a single Set-Cookie header value per RFC 6265bis §5.6.
///
/// One header value is one cookie: this never splits on commas (commas are legal inside Expires
/// and inside values). For stacks that joined several headers with ", ", see `SetCookieHeaderSplitter`.
public struct SetCookieParser: Sendable {
    /// 6265bis §5.6: name + value longer than this is ignored.
    public static let maxNameValueLength = 4096
    /// 6265bis §5.6: an attribute value longer than this is ignored (the attribute only).
    public static let maxAttributeValueLength = 1024
    /// 6265bis: Expires and Max-Age are capped at 400 days from now.
    public static let defaultMaxAge: TimeInterval = 400 * 86_400

    public var maxAge: TimeInterval

    public init(maxAge: TimeInterval = SetCookieParser.defaultMaxAge) {
        self.maxAge = maxAge
    }

    /// Parses `header` received at `now`. Throws `CookieRejection` when the whole header is ignored.
    public func parse(_ header: String, now: Date) throws(CookieRejection) -> ParsedSetCookie {
        // Step 1: control characters other than HTAB make the whole header invalid.
        for scalar in header.unicodeScalars {
            let v = scalar.value
            if v <= 0x08 || (0x0A...0x1F).contains(v) || v == 0x7F { throw .controlCharacter }
        }
        // Step 2: name-value-pair is everything before the first ';'.
        let nameValuePair: Substring
        var unparsedAttributes: Substring
        if let semicolon = header.utf8.firstIndex(of: UInt8(ascii: ";")) {
            nameValuePair = header[..<semicolon]
            unparsedAttributes = header[semicolon...]
        } else {
            nameValuePair = header[...]
            unparsedAttributes = ""
        }
        // Step 3: split at the first '='; no '=' means a nameless cookie.
        let name: Substring
        let value: Substring
        if let equals = nameValuePair.utf8.firstIndex(of: UInt8(ascii: "=")) {
            name = nameValuePair[..<equals]
            value = nameValuePair[nameValuePair.utf8.index(after: equals)...]
        } else {
            name = ""
            value = nameValuePair
        }
        var result = ParsedSetCookie(
            name: String(Self.trimWSP(name)), value: String(Self.trimWSP(value)))
        if result.name.utf8.count + result.value.utf8.count > Self.maxNameValueLength {
            throw .nameValueTooLong
        }
        if result.name.isEmpty && result.value.isEmpty { throw .emptyNameAndValue }

        // §5.6 step 8: attributes, each processed in order so the last one wins.
        while !unparsedAttributes.isEmpty {
            unparsedAttributes =
                unparsedAttributes[unparsedAttributes.utf8.index(after: unparsedAttributes.startIndex)...]  // the ';'
            let cookieAV: Substring
            if let next = unparsedAttributes.utf8.firstIndex(of: UInt8(ascii: ";")) {
                cookieAV = unparsedAttributes[..<next]
                unparsedAttributes = unparsedAttributes[next...]
            } else {
                cookieAV = unparsedAttributes
                unparsedAttributes = ""
            }
            let attributeName: Substring
            let attributeValue: Substring
            if let equals = cookieAV.utf8.firstIndex(of: UInt8(ascii: "=")) {
                attributeName = Self.trimWSP(cookieAV[..<equals])
                attributeValue = Self.trimWSP(cookieAV[cookieAV.utf8.index(after: equals)...])
            } else {
                attributeName = Self.trimWSP(cookieAV)
                attributeValue = ""
            }
            if attributeValue.utf8.count > Self.maxAttributeValueLength { continue }
            apply(attribute: attributeName.lowercased(), value: attributeValue, to: &result, now: now)
        }
        return result
    }

    private func apply(
        attribute: String, value: Substring, to result: inout ParsedSetCookie, now: Date
    ) {
        switch attribute {
        case "expires":
            // §5.6.1: unparsable dates leave the attribute out; far-future dates are capped.
            guard let date = CookieDateParser.parse(String(value)) else { return }
            result.expires = min(date, now.addingTimeInterval(maxAge))
        case "max-age":
            if let delta = Self.parseMaxAge(value) {
                // §5.6.2: zero or negative means "expire now" (earliest representable time).
                result.maxAgeExpiry =
                    delta <= 0 ? Date.distantPast : now.addingTimeInterval(min(TimeInterval(delta), maxAge))
            }
        case "domain":
            // §5.6.3: an empty Domain is ignored (SHOULD); a leading dot is dropped.
            var domain = value
            if domain.utf8.first == UInt8(ascii: ".") {
                domain = domain[domain.utf8.index(after: domain.startIndex)...]
            }
            if domain.isEmpty { return }
            result.domain = domain.lowercased()
        case "path":
            // §5.6.4: empty or relative paths fall back to the default-path (marked by "").
            result.path = value.utf8.first == UInt8(ascii: "/") ? String(value) : ""
        case "secure":
            result.secure = true
        case "httponly":
            result.httpOnly = true
        case "samesite":
            switch value.lowercased() {
            case "strict": result.sameSite = .strict
            case "lax": result.sameSite = .lax
            case "none": result.sameSite = CookieSameSite.none
            default: result.sameSite = .unspecified
            }
        default:
            return  // unknown attributes are ignored
        }
    }

    /// §5.6.2: first char DIGIT or "-", the rest DIGITs. Saturates instead of overflowing.
    static func parseMaxAge(_ value: Substring) -> Int64? {
        guard let first = value.first, first == "-" || first.isASCII && first.isNumber else {
            return nil
        }
        let negative = first == "-"
        let digits = negative ? value.dropFirst() : value
        guard !digits.isEmpty else { return nil }
        var number: Int64 = 0
        for byte in digits.utf8 {
            guard (0x30...0x39).contains(byte) else { return nil }
            if number < Int64.max / 20 { number = number * 10 + Int64(byte - 0x30) }
        }
        return negative ? -number : number
    }

    /// Removes leading and trailing SP / HTAB (WSP), and nothing else.
    static func trimWSP(_ text: Substring) -> Substring {
        let utf8 = text.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 {
            start = utf8.index(after: start)
        }
        while start < end {
            let before = utf8.index(before: end)
            guard utf8[before] == 0x20 || utf8[before] == 0x09 else { break }
            end = before
        }
        return text[start..<end]
    }
}
