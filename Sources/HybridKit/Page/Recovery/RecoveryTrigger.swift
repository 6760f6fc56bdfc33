/// Why a page is considered dead.
public enum RecoveryTrigger: Sendable, Equatable, CustomStringConvertible {
    /// The engine reported that the web content process ended.
    case processTerminated(WebProcessTerminationReason)
    /// No signal came, but the page looks blank (the reason says which check found it).
    case blankPage(String)

    /// The short name pages receive in the `recovered` event.
    public var name: String {
        switch self {
        case .processTerminated(.crashed): "crashed"
        case .processTerminated(.exceededMemoryLimit): "memory"
        case .processTerminated(.terminatedByAPI): "terminated"
        case .blankPage: "blank"
        }
    }

    public var description: String {
        switch self {
        case .processTerminated(let reason): "web process terminated (\(reason))"
        case .blankPage(let why): "blank page (\(why))"
        }
    }
}
