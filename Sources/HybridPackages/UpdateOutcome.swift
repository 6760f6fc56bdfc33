/// What `PackageUpdater.update` did.
public enum UpdateOutcome: Sendable, Equatable {
    /// The active version is already the latest (or newer).
    case upToDate(SemanticVersion?)
    /// A new version was installed and activated; `viaDiff` tells whether a diff package was used.
    case updated(from: SemanticVersion?, to: SemanticVersion, viaDiff: Bool)
}
