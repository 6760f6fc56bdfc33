/// What storing one Set-Cookie did.
public enum CookieSetResult: Sendable, Hashable {
    /// A new cookie was stored.
    case stored(JarCookie)
    /// An existing cookie with the same identity was replaced (creation time kept).
    case replaced(JarCookie, previous: JarCookie)
    /// The cookie was already expired: any cookie with its identity was deleted (`deleted` may be nil).
    case deleted(JarCookie?)
    /// The cookie was refused; the jar is unchanged.
    case rejected(CookieRejection)

    public var isAccepted: Bool {
        if case .rejected = self { return false }
        return true
    }
}
