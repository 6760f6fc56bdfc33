/// Who may call a module: which page origins, from which frames.
///
/// Secure by default: a module states its origins explicitly, and only the main frame may call it unless
/// it opts in to subframes.
public struct BridgeAccess: Sendable {
    public enum Origins: Sendable {
        case any
        /// Exact origins, as `location.origin` spells them: `https://app.example.com`, `app://bundle`.
        case only(Set<String>)
        case matching(@Sendable (String) -> Bool)
    }

    public var origins: Origins
    public var allowsSubframes: Bool

    public init(origins: Origins, allowsSubframes: Bool = false) {
        self.origins = origins
        self.allowsSubframes = allowsSubframes
    }

    public static func origins(_ origins: String..., allowsSubframes: Bool = false) -> BridgeAccess {
        BridgeAccess(origins: .only(Set(origins.map { $0.lowercased() })), allowsSubframes: allowsSubframes)
    }

    /// Any page, any frame. For modules that expose nothing sensitive.
    public static let anyPage = BridgeAccess(origins: .any, allowsSubframes: true)

    /// Whether the rule depends on which frame calls: a module open to any page in any frame does not.
    var dependsOnTheFrame: Bool {
        if case .any = origins, allowsSubframes { return false }
        return true
    }

    func check(origin: String, isMainFrame: Bool, module: String) throws(BridgeError) {
        try checkFrame(isMainFrame: isMainFrame, module: module)
        try checkOrigin(origin, module: module)
    }

    func checkFrame(isMainFrame: Bool, module: String) throws(BridgeError) {
        if !isMainFrame && !allowsSubframes {
            throw .denied("module '\(module)' cannot be called from a subframe")
        }
    }

    func checkOrigin(_ origin: String, module: String) throws(BridgeError) {
        let allowed =
            switch origins {
            case .any: true
            case .only(let set): set.contains(origin.lowercased())
            case .matching(let predicate): predicate(origin)
            }
        if !allowed { throw .denied("origin \(origin) may not call module '\(module)'") }
    }
}
