import Foundation

/// Runs blocking `body` on a thread of its own and returns what it returned.
///
/// Swift's cooperative pool has one thread per core (two here): a test that blocks one of them, waiting for a
/// child process or a whole corpus of them, starves every other async test of the process, and the servers
/// those tests talk to.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
