import Synchronization

/// The bytes of JSON arguments that calls answering later hold at once (``BridgeLimits/maxPendingArgumentBytes``).
/// A call takes a ``Lease`` on its arguments' size when its work is made; the lease gives the bytes back when the
/// work, which holds it, is released, however the call ended (answered, failed, timed out, cancelled).
final class ArgumentBudget: Sendable {
    let limit: Int
    private let used = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    /// Bytes held now.
    var inUse: Int { used.load(ordering: .relaxed) }

    /// A hold on `bytes`, or nil when it would pass the limit.
    func lease(_ bytes: Int) -> Lease? {
        var current = used.load(ordering: .relaxed)
        while true {
            let (sum, overflow) = current.addingReportingOverflow(bytes)
            guard !overflow, sum <= limit else { return nil }
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: sum, ordering: .acquiringAndReleasing)
            if exchanged { return Lease(bytes: bytes, budget: self) }
            current = original
        }
    }

    fileprivate func giveBack(_ bytes: Int) { used.subtract(bytes, ordering: .acquiringAndReleasing) }

    /// Bytes counted against the budget until this goes.
    final class Lease: Sendable {
        let bytes: Int
        private let budget: ArgumentBudget

        fileprivate init(bytes: Int, budget: ArgumentBudget) {
            self.bytes = bytes
            self.budget = budget
        }

        deinit { budget.giveBack(bytes) }
    }
}
