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
        /// The pages of the container's ``HybridSite`` (its custom-scheme origin, `hybrid://shop.example`),
        /// never the live https origin: see ``BridgeAccess/site``.
        case site
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

    /// The pages of the container's site, main frame only: the signed package's pages under the site's custom
    /// scheme (``HybridSite/pageOrigin``), not the site's live https origin, which serves unsigned content from the
    /// network. A container made without a site refuses to be made with such a module.
    public static let site = BridgeAccess(origins: .site)

    /// The pages of the container's site, in any of their frames that has the site's origin too.
    public static func site(allowsSubframes: Bool) -> BridgeAccess {
        BridgeAccess(origins: .site, allowsSubframes: allowsSubframes)
    }

    /// This rule with ``Origins/site`` replaced by `siteOrigin` (nil: the container has no site).
    func resolvingSite(_ siteOrigin: String?) -> BridgeAccess? {
        guard case .site = origins else { return self }
        guard let siteOrigin else { return nil }
        return BridgeAccess(origins: .only([siteOrigin.lowercased()]), allowsSubframes: allowsSubframes)
    }

    /// Whether the rule names `origin`'s https spelling while `origin` is a custom-scheme page of that host: the
    /// mistake of naming a site by its address rather than as the pages its package serves.
    func namesAddress(of origin: String) -> String? {
        guard case .only(let set) = origins, let range = origin.range(of: "://") else { return nil }
        let scheme = origin[..<range.lowerBound].lowercased()
        guard scheme != "http", scheme != "https" else { return nil }
        let rest = origin[range.lowerBound...]
        return set.first { $0 == "https" + rest || $0 == "http" + rest }
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
            // Resolved when a container with a site is made; left here only on a page made without one.
            case .site: false
            }
        if !allowed { throw .denied("origin \(origin) may not call module '\(module)'") }
    }
}
