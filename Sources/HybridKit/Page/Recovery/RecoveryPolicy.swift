/// How a page recovers from a white screen: how often, how fast, and when to stop.
///
/// A recovery that fails (the page dies again before it has stayed up for ``stableAfter``) counts towards
/// ``maxConsecutiveAttempts``; a page that always dies therefore stops being reloaded instead of looping.
public struct RecoveryPolicy: Sendable, Equatable {
    /// Recoveries in a row, each followed by another death within ``stableAfter``, before giving up.
    public var maxConsecutiveAttempts: Int
    /// The wait before the second attempt in a row; it doubles with each further attempt. The first is at once.
    public var initialBackoff: Duration
    public var maxBackoff: Duration
    /// A recovered page that stays alive this long after its load finished counts as healthy again, and the
    /// next death starts a fresh series of attempts.
    public var stableAfter: Duration
    /// Treat an empty title as a blank page when the loaded page had one (a page whose web process died often keeps its
    /// URL but loses its title). Pages without a `<title>` are never judged by it.
    public var checksTitle: Bool
    /// Probe the document with a cheap script (does the body show anything?) when asked to check.
    public var probesBody: Bool

    public init(
        maxConsecutiveAttempts: Int = 3, initialBackoff: Duration = .milliseconds(500),
        maxBackoff: Duration = .seconds(8), stableAfter: Duration = .seconds(5), checksTitle: Bool = true,
        probesBody: Bool = true
    ) {
        self.maxConsecutiveAttempts = max(1, maxConsecutiveAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.stableAfter = stableAfter
        self.checksTitle = checksTitle
        self.probesBody = probesBody
    }

    /// The wait before attempt `attempt` (1-based) of a series.
    public func backoff(beforeAttempt attempt: Int) -> Duration {
        guard attempt > 1 else { return .zero }
        var delay = initialBackoff
        for _ in 2..<attempt {
            delay *= 2
            if delay >= maxBackoff { return maxBackoff }
        }
        return min(delay, maxBackoff)
    }
}
