/// An entity tag as written on the wire: `"opaque"` or `W/"opaque"` (RFC 9110 §8.8.3).
struct EntityTag: Equatable, Sendable {
    /// With its double quotes.
    let opaque: Substring
    let isWeak: Bool

    /// Strong comparison (§8.8.3.2): both strong and the same characters. What `If-Match` and `If-Range` use.
    func strongMatches(_ other: EntityTag) -> Bool { !isWeak && !other.isWeak && opaque == other.opaque }
    /// Weak comparison: the same opaque tag, `W/` or not. What `If-None-Match` uses.
    func weakMatches(_ other: EntityTag) -> Bool { opaque == other.opaque }

    /// Reads one tag at the start of `text`; nil if `text` does not start with one.
    static func parse(prefixOf text: inout Substring) -> EntityTag? {
        var rest = text
        let isWeak = rest.hasPrefix("W/")
        if isWeak { rest = rest.dropFirst(2) }
        guard rest.first == "\"" else { return nil }
        guard let close = rest.dropFirst().firstIndex(of: "\"") else { return nil }
        let end = rest.index(after: close)
        let tag = EntityTag(opaque: rest[..<end], isWeak: isWeak)
        text = rest[end...]
        return tag
    }

    init(opaque: Substring, isWeak: Bool) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// The tag of a strong ETag value we send, `"<sha256>"`.
    init(strong value: String) {
        opaque = Substring(value)
        isWeak = false
    }
}

/// The value of `If-Match` or `If-None-Match`: `*` or a comma-separated list of entity tags (RFC 9110 §13.1.1–2).
///
/// A list that stops parsing keeps the tags read so far: a malformed `If-Match` then matches nothing (412, the
/// safe answer for a client that meant a condition), a malformed `If-None-Match` matches nothing (a full answer).
enum EntityTagCondition: Equatable, Sendable {
    case any
    case tags([EntityTag])

    init(_ header: String) {
        var rest = Substring(header)
        var tags: [EntityTag] = []
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            if rest.isEmpty { break }
            if rest.first == "*", tags.isEmpty,
                rest.dropFirst().allSatisfy({ $0 == " " || $0 == "\t" })
            {
                self = .any
                return
            }
            guard let tag = EntityTag.parse(prefixOf: &rest) else { break }
            tags.append(tag)
        }
        self = .tags(tags)
    }

    /// For `If-Match`: `*` matches any current representation; otherwise one tag must compare strongly equal.
    func matchesStrongly(_ current: EntityTag) -> Bool {
        switch self {
        case .any: return true
        case .tags(let tags): return tags.contains { $0.strongMatches(current) }
        }
    }

    /// For `If-None-Match`: `*` matches any current representation; otherwise one tag must compare weakly equal.
    func matchesWeakly(_ current: EntityTag) -> Bool {
        switch self {
        case .any: return true
        case .tags(let tags): return tags.contains { $0.weakMatches(current) }
        }
    }
}

/// The outcome of RFC 9110 §13.2.2's precondition evaluation for a `GET`/`HEAD` of an existing file.
///
/// We send a strong ETag and no `Last-Modified` (a file's modification time says nothing certain about its bytes:
/// see `PackageCatalog`), so `If-Unmodified-Since` and `If-Modified-Since` are ignored as §13.1.3–4 require of a
/// resource without a modification date, and an `If-Range` date never validates a range.
enum PreconditionOutcome: Equatable, Sendable {
    /// 412: `If-Match` failed.
    case preconditionFailed
    /// 304: `If-None-Match` matched.
    case notModified
    /// Answer normally; `honorRange` false means send the whole file whatever `Range` says.
    case proceed(honorRange: Bool)

    init(ifMatch: String?, ifNoneMatch: String?, ifRange: String?, current: EntityTag) {
        // Step 1: If-Match, first and alone (If-Unmodified-Since would be step 2; we have no date).
        if let ifMatch, !EntityTagCondition(ifMatch).matchesStrongly(current) {
            self = .preconditionFailed
            return
        }
        // Step 3: If-None-Match; for GET and HEAD a match is a 304.
        if let ifNoneMatch, EntityTagCondition(ifNoneMatch).matchesWeakly(current) {
            self = .notModified
            return
        }
        // Step 5: If-Range only matters with a Range, which the caller applies when honorRange is true.
        guard let ifRange else {
            self = .proceed(honorRange: true)
            return
        }
        self = .proceed(honorRange: Self.ifRangeMatches(ifRange, current: current))
    }

    /// §13.1.5: an entity tag matches only by strong comparison; an HTTP-date only if it is exactly a strong
    /// `Last-Modified` we sent, and we send none. Anything else (a weak tag, a date, garbage) means "changed".
    static func ifRangeMatches(_ header: String, current: EntityTag) -> Bool {
        var rest = Substring(header).drop { $0 == " " || $0 == "\t" }
        guard let tag = EntityTag.parse(prefixOf: &rest),
            rest.allSatisfy({ $0 == " " || $0 == "\t" })
        else { return false }
        return tag.strongMatches(current)
    }
}
