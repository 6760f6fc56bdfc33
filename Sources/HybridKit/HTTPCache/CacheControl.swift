import Foundation
import Synchronization

/// The directives of a `Cache-Control` header (RFC 9111 §5.2), as far as a private cache uses them.
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var mustRevalidate = false
    var maxAge: Int?
    var minFresh: Int?

    init(_ header: String?) {
        guard let header else { return }
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard let name = pieces.first else { continue }
            let value = pieces.count > 1 ? pieces[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            switch name {
            case "no-store": noStore = true
            // `no-cache` with field names still means "revalidate" for this cache, which keeps no partial reuse.
            case "no-cache": noCache = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            // An unreadable delta-seconds is treated as 0: stale at once.
            case "max-age": maxAge = value.flatMap(Self.deltaSeconds) ?? 0
            case "min-fresh": minFresh = value.flatMap(Self.deltaSeconds) ?? 0
            default: continue
            }
        }
    }

    /// The largest delta-seconds a cache must represent; larger values are read as this (RFC 9111 §1.2.2).
    static let deltaSecondsCeiling = 2_147_483_648

    /// A delta-seconds (§1.2.2): one or more ASCII digits and nothing else (no sign, space or exponent), read as
    /// at most ``deltaSecondsCeiling``; nil when it is not one.
    static func deltaSeconds(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var value = 0
        for digit in text.utf8 {
            value = value * 10 + Int(digit - 0x30)
            if value >= deltaSecondsCeiling { return deltaSecondsCeiling }
        }
        return value
    }
}

/// RFC 9111's rules for one stored response: may it be stored, how long is it fresh, how old is it.
enum CacheRules {
    /// Status codes a response may be stored with heuristic freshness (RFC 9110 §15.1); other statuses need an
    /// explicit lifetime.
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
    /// Statuses this cache stores at all (no partial content: it keeps no ranges).
    /// RFC 9110's heuristically cacheable statuses less the redirects (300, 301, 308): a stored redirect would be
    /// replayed as the answer itself to callers that follow redirects, and what a redirect led to is kept apart.
    static let storable: Set<Int> = [200, 203, 204, 404, 405, 410, 414, 501]

    static func header(_ name: String, in headers: [String: String]) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether a GET's response may be stored (§3), given the request's headers.
    static func mayStore(status: Int, response: [String: String], request: EngineRequest) -> Bool {
        guard storable.contains(status) else { return false }
        let responseControl = CacheControl(header("Cache-Control", in: response))
        let requestControl = CacheControl(request.header("Cache-Control"))
        guard !responseControl.noStore, !requestControl.noStore else { return false }
        // `Vary: *` never matches; `Vary: Cookie` would need the jar's cookies in the key, which this cache
        // does not keep: neither is stored.
        let vary = varyNames(response)
        guard !vary.contains("*"), !vary.contains("cookie") else { return false }
        let explicit = responseControl.maxAge != nil || header("Expires", in: response) != nil
        let validators = header("ETag", in: response) != nil || header("Last-Modified", in: response) != nil
        // Without a lifetime or a validator a stored response could never be used.
        return explicit || validators
    }

    static func varyNames(_ headers: [String: String]) -> [String] {
        (header("Vary", in: headers) ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty }
    }

    /// How long a response stays fresh (§4.2.1): max-age, else Expires − Date, else 10 % of Date − Last-Modified
    /// (at most a day), else 0.
    static func freshnessLifetime(_ headers: [String: String], status: Int) -> TimeInterval {
        let control = CacheControl(header("Cache-Control", in: headers))
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        let date = header("Date", in: headers).flatMap(HTTPDate.parse)
        if let expires = header("Expires", in: headers) {
            // An invalid Expires (`0`, say) means already expired (§5.3).
            guard let expiry = HTTPDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date ?? Date()))
        }
        if heuristicallyCacheable.contains(status), let date,
            let modified = header("Last-Modified", in: headers).flatMap(HTTPDate.parse)
        {
            return min(86_400, max(0, date.timeIntervalSince(modified) / 10))
        }
        return 0
    }

    /// The response's current age (§4.2.3).
    static func currentAge(
        _ headers: [String: String], requestTime: Date, responseTime: Date, now: Date
    ) -> TimeInterval {
        let date = header("Date", in: headers).flatMap(HTTPDate.parse) ?? responseTime
        // An Age that is not a delta-seconds ("-5", "1e9", "inf") is ignored.
        let ageValue = TimeInterval(
            header("Age", in: headers).flatMap { CacheControl.deltaSeconds($0.trimmingCharacters(in: .whitespaces)) }
                ?? 0)
        let apparent = max(0, responseTime.timeIntervalSince(date))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedInitial = max(apparent, ageValue + responseDelay)
        return correctedInitial + max(0, now.timeIntervalSince(responseTime))
    }
}

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the two obsolete forms recipients must accept.
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ]
    // Made once: every lookup reads two or three dates, and a DateFormatter costs far more to make than to use.
    // DateFormatter is not Sendable; each is used under its lock only.
    private static let parsers = Mutex(formats.map(formatter))
    private static let writer = Mutex(formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'"))

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }

    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return parsers.withLock { parsers in parsers.lazy.compactMap { $0.date(from: trimmed) }.first }
    }

    static func format(_ date: Date) -> String { writer.withLock { $0.string(from: date) } }
}
