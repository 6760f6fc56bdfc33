/// What `work` returns, or `timedOut()` when `timeout` passes first; the loser is cancelled. The container's
/// waits (a load, a page message) are a sequence read until it says something, raced against a deadline.
func outcome<T: Sendable>(
    of work: @escaping @Sendable () async -> T, within timeout: Duration,
    else timedOut: @escaping @Sendable () -> T
) async -> T {
    await withTaskGroup(of: T.self) { group in
        group.addTask(operation: work)
        group.addTask {
            try? await Task.sleep(for: timeout)
            return timedOut()
        }
        // Two tasks were added, so next() has a value.
        let first = await group.next() ?? timedOut()
        group.cancelAll()
        return first
    }
}
