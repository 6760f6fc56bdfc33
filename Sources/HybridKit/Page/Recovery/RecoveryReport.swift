import Foundation

/// One recovery, as the host and the page hear about it.
public struct RecoveryReport: Sendable, Equatable, Encodable {
    /// `crashed`, `memory`, `terminated` or `blank`.
    public var reason: String
    /// 1 for the first attempt of a series.
    public var attempt: Int
    public var url: String?
    /// Whether the page was hidden when it died (it was then recovered when shown).
    public var deferred: Bool

    public init(reason: String, attempt: Int, url: String?, deferred: Bool) {
        self.reason = reason
        self.attempt = attempt
        self.url = url
        self.deferred = deferred
    }
}

/// What a ``PageRecovery`` tells its owner. Called on the engine's actor.
@EngineActor
public protocol PageRecoveryDelegate: AnyObject, Sendable {
    /// The page died or was found blank; the reload that recovers it comes in a later turn.
    func pageDied(_ trigger: RecoveryTrigger)
    func pageRecovered(_ report: RecoveryReport)
    /// The page kept dying; nothing more is tried until the host loads again.
    func pageRecoveryGaveUp(attempts: Int, trigger: RecoveryTrigger)
}

extension PageRecoveryDelegate {
    public func pageDied(_ trigger: RecoveryTrigger) {}
}
