/// A semantic version (https://semver.org, 2.0.0): `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`.
///
/// Package versions decide which update is newer and which base a diff applies to, so ordering must follow
/// SemVer precedence exactly: pre-releases sort below their release and build metadata is ignored for ordering.
public struct SemanticVersion: Sendable, Hashable, Comparable, LosslessStringConvertible, Codable {
    public let major: Int
    public let minor: Int
    public let patch: Int
    /// Dot-separated pre-release identifiers, e.g. `["beta", "2"]` for `1.0.0-beta.2`.
    public let prerelease: [String]
    /// Build metadata identifiers; kept for display, never used for ordering.
    public let build: [String]

    public init(major: Int, minor: Int, patch: Int, prerelease: [String] = [], build: [String] = []) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
        self.build = build
    }

    /// Parses `text`; returns nil unless it is a strict SemVer 2.0 version (no leading `v`, no leading zeros).
    public init?(_ text: String) {
        var rest = Substring(text)
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            build = rest[rest.index(after: plus)...].split(
                separator: ".", omittingEmptySubsequences: false
            ).map(String.init)
            rest = rest[..<plus]
            guard !build.isEmpty, build.allSatisfy({ Self.isIdentifier($0) }) else { return nil }
        }
        var prerelease: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            prerelease = rest[rest.index(after: dash)...].split(
                separator: ".", omittingEmptySubsequences: false
            ).map(String.init)
            rest = rest[..<dash]
            guard !prerelease.isEmpty,
                prerelease.allSatisfy({ Self.isIdentifier($0) && !Self.hasLeadingZero($0) })
            else { return nil }
        }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard core.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in core {
            guard !part.isEmpty, part.allSatisfy(\.isASCIIDigit), !Self.hasLeadingZero(String(part)),
                let value = Int(part)
            else { return nil }
            numbers.append(value)
        }
        self.init(
            major: numbers[0], minor: numbers[1], patch: numbers[2], prerelease: prerelease, build: build)
    }

    public var description: String {
        var text = "\(major).\(minor).\(patch)"
        if !prerelease.isEmpty { text += "-" + prerelease.joined(separator: ".") }
        if !build.isEmpty { text += "+" + build.joined(separator: ".") }
        return text
    }

    public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        // A version without pre-release identifiers has higher precedence than one with them.
        switch (lhs.prerelease.isEmpty, rhs.prerelease.isEmpty) {
        case (true, true): return false
        case (true, false): return false
        case (false, true): return true
        case (false, false): break
        }
        for (left, right) in zip(lhs.prerelease, rhs.prerelease) where left != right {
            switch (Int(left), Int(right)) {
            case (let l?, let r?): return l < r
            case (.some, nil): return true  // numeric identifiers sort below alphanumeric ones
            case (nil, .some): return false
            case (nil, nil): return left < right
            }
        }
        return lhs.prerelease.count < rhs.prerelease.count
    }

    /// Equality follows precedence (build metadata ignored), so `==` agrees with `<`.
    public static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        lhs.major == rhs.major && lhs.minor == rhs.minor && lhs.patch == rhs.patch
            && lhs.prerelease == rhs.prerelease
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
        hasher.combine(patch)
        hasher.combine(prerelease)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let version = SemanticVersion(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a semantic version like 1.2.3")
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-")
            }
    }

    private static func hasLeadingZero(_ text: String) -> Bool {
        text.count > 1 && text.first == "0" && text.allSatisfy(\.isASCIIDigit)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
