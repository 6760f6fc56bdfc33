#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
/// Polls a condition on the caller's executor until it holds or time runs out.
enum TourWait {
    /// Whether `condition` held within `timeout`.
    static func until(
        timeout: Duration = .seconds(30), isolation: isolated (any Actor)? = #isolation,
        _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }
}
#endif
