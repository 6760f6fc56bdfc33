#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
import Testing

/// Every web view of the test process shares one engine cookie store (`GTKWebContext.shared`). Tests that depend on
/// its content (the cookie sync tests, whose jars follow it) and tests that wipe it (clearing website data) take
/// this trait, so they never overlap: a wipe in the middle of a sync test would rightly delete that test's cookies
/// from its jar too.
struct EngineCookieStoreExclusive: SuiteTrait, TestTrait, TestScoping {
    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await EngineCookieStoreLock.shared.acquire()
        do {
            try await function()
        } catch {
            await EngineCookieStoreLock.shared.release()
            throw error
        }
        await EngineCookieStoreLock.shared.release()
    }
}

extension Trait where Self == EngineCookieStoreExclusive {
    static var engineCookieStoreExclusive: Self { EngineCookieStoreExclusive() }
}

/// A first-come, first-served async lock.
actor EngineCookieStoreLock {
    static let shared = EngineCookieStoreLock()
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
#endif
