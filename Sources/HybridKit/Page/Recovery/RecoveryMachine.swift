/// The white-screen recovery policy as a state machine: events in, actions out. No engine, no clock of its own
/// (callers pass the time), so every rule is unit-testable.
///
/// Rules: a dead page is reloaded at once when visible; when hidden, nothing happens until it is shown
/// (reloading a hidden page only gets it killed again). Attempts in a row back off and stop at the policy's
/// maximum. A host load starts over.
public struct RecoveryMachine: Sendable {
    public enum Phase: Sendable, Equatable {
        case healthy
        /// Dead while hidden: recover when shown.
        case waitingUntilVisible(RecoveryTrigger)
        /// An attempt is due after its backoff.
        case scheduled(attempt: Int, RecoveryTrigger)
        /// The recovery load is running.
        case reloading(attempt: Int, RecoveryTrigger)
        /// Too many failed attempts in a row; only a host load or ``RecoveryMachine/reset()`` revives the page.
        case gaveUp(attempts: Int, RecoveryTrigger)
    }

    public enum Action: Sendable, Equatable {
        case none
        /// Start attempt `attempt` after `delay` (then call ``beginAttempt(_:)``).
        case reload(attempt: Int, after: Duration)
        /// Stop trying; tell the host.
        case giveUp(attempts: Int, RecoveryTrigger)
        /// The recovery load finished: tell the page.
        case recovered(attempt: Int, RecoveryTrigger)
    }

    public let policy: RecoveryPolicy
    public private(set) var phase: Phase = .healthy
    public private(set) var isVisible: Bool
    /// Attempts in the current series.
    public private(set) var attempts = 0
    /// When the last recovery load finished; a death after ``RecoveryPolicy/stableAfter`` starts a new series.
    private var recoveredAt: ContinuousClock.Instant?

    public init(policy: RecoveryPolicy = RecoveryPolicy(), isVisible: Bool = true) {
        self.policy = policy
        self.isVisible = isVisible
    }

    /// The page died (`trigger`) at `now`.
    public mutating func pageDied(_ trigger: RecoveryTrigger, at now: ContinuousClock.Instant) -> Action {
        switch phase {
        case .gaveUp: return .none
        case .waitingUntilVisible:
            // Still dead and still hidden: one recovery when shown is enough.
            return .none
        case .scheduled:
            // Already due: a second signal for the same death must not add an attempt.
            return .none
        case .healthy:
            if let recoveredAt, now - recoveredAt >= policy.stableAfter { attempts = 0 }
            if recoveredAt == nil { attempts = 0 }
        case .reloading:
            // Died while recovering: the series continues.
            break
        }
        recoveredAt = nil
        guard isVisible else {
            phase = .waitingUntilVisible(trigger)
            return .none
        }
        return schedule(trigger)
    }

    private mutating func schedule(_ trigger: RecoveryTrigger) -> Action {
        guard attempts < policy.maxConsecutiveAttempts else {
            phase = .gaveUp(attempts: attempts, trigger)
            return .giveUp(attempts: attempts, trigger)
        }
        attempts += 1
        phase = .scheduled(attempt: attempts, trigger)
        return .reload(attempt: attempts, after: policy.backoff(beforeAttempt: attempts))
    }

    /// The backoff of `attempt` is over. Returns true when the reload should start now; false when the attempt
    /// is stale or the page was hidden meanwhile (it then waits to be shown).
    public mutating func beginAttempt(_ attempt: Int) -> Bool {
        guard case .scheduled(let due, let trigger) = phase, due == attempt else { return false }
        guard isVisible else {
            // The attempt was not made: it does not count.
            attempts -= 1
            phase = .waitingUntilVisible(trigger)
            return false
        }
        phase = .reloading(attempt: attempt, trigger)
        return true
    }

    public mutating func visibilityChanged(_ visible: Bool) -> Action {
        isVisible = visible
        guard visible, case .waitingUntilVisible(let trigger) = phase else { return .none }
        return schedule(trigger)
    }

    /// A main-frame load finished at `now`.
    public mutating func loadFinished(at now: ContinuousClock.Instant) -> Action {
        guard case .reloading(let attempt, let trigger) = phase else { return .none }
        phase = .healthy
        recoveredAt = now
        return .recovered(attempt: attempt, trigger)
    }

    /// A main-frame load failed: a failed recovery load is a failed attempt.
    public mutating func loadFailed() -> Action {
        guard case .reloading(_, let trigger) = phase else { return .none }
        return schedule(trigger)
    }

    /// The host loaded something new: whatever happened to the old page no longer matters.
    public mutating func reset() {
        phase = .healthy
        attempts = 0
        recoveredAt = nil
    }
}
