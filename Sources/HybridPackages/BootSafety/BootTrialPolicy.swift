/// How long and how often a newly activated version may fail before it is rolled back.
public struct BootTrialPolicy: Sendable, Hashable {
    /// Failed opens that roll the version back (1: the first failure does).
    public var failedOpensAllowed: Int
    /// How long the page has to confirm, counted from the first open of an attempt: reloads, navigations and
    /// reopened pages do not restart it, only a counted failure does. The container enforces it.
    public var deadline: Duration

    public init(failedOpensAllowed: Int = 1, deadline: Duration = .seconds(10)) {
        self.failedOpensAllowed = max(1, failedOpensAllowed)
        self.deadline = deadline
    }
}

/// What the next open of a package should do.
public enum BootDecision: Sendable, Equatable {
    /// Serve the active version; `onTrial` when it still has to confirm.
    case serve(SemanticVersion, onTrial: Bool)
    /// The version on trial failed for the last allowed time and the previous good version now serves.
    case rolledBack(from: SemanticVersion, to: SemanticVersion, reason: BootFailure)
}

/// Reported to the host when boot safety rolls a version back.
public struct BootRollback: Sendable, Equatable {
    public var id: String
    public var from: SemanticVersion
    public var to: SemanticVersion
    public var reason: BootFailure
}
