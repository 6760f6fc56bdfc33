import Foundation

/// The Public Suffix List (https://publicsuffix.org), used to refuse `Domain=` attributes that name
/// a whole suffix (`co.uk`, `github.io`) and to find registrable domains (eTLD+1) for limits and
/// same-site checks.
///
/// Rules are kept in three hash sets (plain, wildcard, exception); a lookup walks the host's
/// label suffixes once, so it costs a handful of hash probes. Both the ICANN and the PRIVATE
/// sections apply (browsers use both; the section is recorded for callers that care).
public final class PublicSuffixList: Sendable {
    public enum Section: Sendable, Hashable {
        case icann
        case privateDomains
        /// No explicit rule matched; the implicit "*" rule made the last label the suffix.
        case implicitDefault
    }

    public struct Match: Sendable, Hashable {
        /// The public suffix of the host, e.g. `co.uk` for `www.example.co.uk`.
        public var publicSuffix: String
        public var section: Section
    }

    /// Without a list, every host is treated as a public suffix: cookies stay host-only and each host is its own
    /// site, the strictest reading, where an empty list (the implicit "*" rule alone) would be the most permissive.
    public static let failClosed = PublicSuffixList(rules: "", everyHostIsASuffix: true)

    private let everyHostIsASuffix: Bool
    private let plainRules: [String: Section]
    /// "*.ck" is stored as "ck": it matches any host with one more label in front.
    private let wildcardRules: [String: Section]
    /// "!www.ck" is stored as "www.ck".
    private let exceptionRules: [String: Section]

    /// The list shipped as a resource of this module, parsed once on first use.
    public static let shared: PublicSuffixList = {
        do {
            return try PublicSuffixList.bundled()
        } catch {
            // The resource is part of the module; missing it is a packaging bug. Fall back to the
            // system copy if there is one, else to the implicit "*" rule only, and say so once.
            if let system = try? PublicSuffixList(
                contentsOf: URL(fileURLWithPath: "/usr/share/publicsuffix/public_suffix_list.dat"))
            {
                return system
            }
            // Failing open (the implicit "*" rule only) would let evil.co.uk set cookies for all of co.uk.
            FileHandle.standardError.write(
                Data(
                    ("HybridCookies: \(error); until it ships, every Domain attribute naming more than the host "
                        + "is refused and each host is its own site\n").utf8))
            return .failClosed
        }
    }()

    public static func bundled() throws(PublicSuffixListError) -> PublicSuffixList {
        guard
            let url = PackageResources.bundle(of: "HybridCookies")?.url(
                forResource: "public_suffix_list", withExtension: "dat")
        else {
            throw .resourceMissing
        }
        return try PublicSuffixList(contentsOf: url)
    }

    public convenience init(contentsOf url: URL) throws(PublicSuffixListError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .unreadable(url.path, "\(error)") }
        self.init(rules: String(decoding: data, as: UTF8.self))
    }

    /// Parses the list format: one rule per line, `//` comments, first whitespace ends a rule,
    /// `===BEGIN PRIVATE DOMAINS===` switches section.
    public convenience init(rules text: String) {
        self.init(rules: text, everyHostIsASuffix: false)
    }

    private init(rules text: String, everyHostIsASuffix: Bool) {
        self.everyHostIsASuffix = everyHostIsASuffix
        var plain: [String: Section] = [:]
        var wildcard: [String: Section] = [:]
        var exception: [String: Section] = [:]
        var section = Section.icann
        for rawLine in text.split(whereSeparator: \.isNewline) {
            if rawLine.hasPrefix("//") {
                if rawLine.contains("===BEGIN PRIVATE DOMAINS===") { section = .privateDomains }
                if rawLine.contains("===BEGIN ICANN DOMAINS===") { section = .icann }
                continue
            }
            guard let ruleText = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" }).first else {
                continue
            }
            let rule = ruleText.lowercased()
            if rule.hasPrefix("!") {
                exception[String(rule.dropFirst()), default: section] = section
            } else if rule.hasPrefix("*.") {
                wildcard[String(rule.dropFirst(2)), default: section] = section
            } else if rule != "*" {
                plain[rule, default: section] = section
            }
        }
        plainRules = plain
        wildcardRules = wildcard
        exceptionRules = exception
    }

    public var ruleCount: Int { plainRules.count + wildcardRules.count + exceptionRules.count }

    /// The public suffix of a canonical (lower-case ASCII) host, per the PSL algorithm.
    public func match(host: String) -> Match {
        if everyHostIsASuffix { return Match(publicSuffix: host, section: .implicitDefault) }
        // suffixes[i] is the host without its first i labels ("a.b.c", "b.c", "c"); built once.
        var suffixes: [String] = [host]
        var index = host.utf8.startIndex
        while index < host.utf8.endIndex {
            if host.utf8[index] == UInt8(ascii: ".") {
                let next = host.utf8.index(after: index)
                suffixes.append(String(host[next...]))
            }
            index = host.utf8.index(after: index)
        }
        // Exception rules always prevail: the suffix is the rule minus its leftmost label.
        if !exceptionRules.isEmpty {
            for i in suffixes.indices {
                if let section = exceptionRules[suffixes[i]] {
                    return Match(publicSuffix: suffixes[min(i + 1, suffixes.count - 1)], section: section)
                }
            }
        }
        // Otherwise the longest matching rule: walk from the longest suffix down.
        for i in suffixes.indices {
            if let section = plainRules[suffixes[i]] {
                return Match(publicSuffix: suffixes[i], section: section)
            }
            if i + 1 < suffixes.count, let section = wildcardRules[suffixes[i + 1]] {
                return Match(publicSuffix: suffixes[i], section: section)
            }
        }
        return Match(publicSuffix: suffixes[suffixes.count - 1], section: .implicitDefault)
    }

    public func publicSuffix(of host: String) -> String { match(host: host).publicSuffix }

    public func isPublicSuffix(_ domain: String) -> Bool {
        guard !CookieDomain.isIPAddress(domain) else { return false }
        return match(host: domain).publicSuffix == domain
    }

    /// eTLD+1 (`example.co.uk` for `a.b.example.co.uk`); `nil` when the host is itself a public suffix.
    /// IP addresses are their own registrable domain.
    public func registrableDomain(of host: String) -> String? {
        if CookieDomain.isIPAddress(host) { return host }
        let suffix = match(host: host).publicSuffix
        guard host.utf8.count > suffix.utf8.count else { return nil }
        // Take one more label to the left of the suffix.
        let head = host.utf8.prefix(host.utf8.count - suffix.utf8.count - 1)
        guard let dot = head.lastIndex(of: UInt8(ascii: ".")) else { return host }
        return String(host[host.utf8.index(after: dot)...])
    }

    /// The "site" of a host for same-site checks: its registrable domain, or the host itself.
    public func site(of host: String) -> String {
        registrableDomain(of: host) ?? host
    }
}

public enum PublicSuffixListError: Error, Sendable, LocalizedError, CustomStringConvertible {
    case resourceMissing
    case unreadable(String, String)

    public var description: String {
        switch self {
        case .resourceMissing:
            return "public_suffix_list.dat is missing: \(PackageResources.shippingAdvice)"
        case .unreadable(let path, let reason):
            return "Cannot read the public suffix list at \(path): \(reason)"
        }
    }

    public var errorDescription: String? { description }
}
