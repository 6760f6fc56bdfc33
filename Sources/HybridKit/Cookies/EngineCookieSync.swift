import Foundation
import HybridCookies
import Logging
import Metrics
import Synchronization

/// Keeps the engine's cookie store in step with the jar, the jar being the source of truth.
///
/// Jar → engine: every cookie of the jar (HttpOnly included) is written to the engine when sync starts and on every
/// change after, so pages the engine loads itself over http(s) send them from their first request; removals
/// (deletion, expiry, eviction) are deleted from the engine. Engine → jar: when the engine's store changes (a
/// `Set-Cookie` on a page or ajax response the engine handled, `document.cookie` on an http(s) page, the engine
/// dropping an expired cookie), the store is read and what differs from what this sync last knew of it is copied
/// into the jar, deletions included.
///
/// No echo loops: one worker applies everything in order and remembers what the engine holds (`mirror`). A jar
/// change the engine already has, or an engine change the jar made, compares equal to the mirror and stops there.
/// Cookies the engine held before sync started are left as they are (the engine's store may be shared by other
/// views); they join the jar once they change.
public final class EngineCookieSync: Sendable {
    public let jar: CookieJar
    private let store: any EngineCookieStore
    private let work: AsyncStream<Work>.Continuation
    private let worker: Task<Void, Never>
    private let observation = Mutex<CookieObservation?>(nil)
    private let pullQueued: SyncFlag
    private let stopped: SyncFlag

    enum Work: Sendable {
        case start(CheckedContinuation<Void, Never>)
        case jar(CookieChange)
        case engine
        case barrier(CheckedContinuation<Void, Never>)
    }

    /// Creates the sync between `jar` and the engine's `store`; nothing moves until `start()`.
    public init(jar: CookieJar, store: any EngineCookieStore) {
        self.jar = jar
        self.store = store
        let (stream, continuation) = AsyncStream.makeStream(of: Work.self)
        work = continuation
        let pullQueued = SyncFlag()
        self.pullQueued = pullQueued
        let stopped = SyncFlag()
        self.stopped = stopped
        let state = Worker(jar: jar, store: store, pullQueued: pullQueued)
        worker = Task {
            for await item in stream {
                // Work queued before `stop()` is dropped: a stopped sync must not touch the engine any more.
                guard !stopped.isRaised else {
                    if case .start(let done) = item { done.resume() }
                    if case .barrier(let done) = item { done.resume() }
                    continue
                }
                await state.handle(item)
            }
        }
    }

    deinit {
        work.finish()
    }

    /// Writes the jar into the engine and starts following both sides. Returns once the engine holds the jar's
    /// cookies, so a page loaded next sends them.
    @EngineActor public func start() async {
        let continuation = work
        let pullQueued = self.pullQueued
        let isFirstStart = observation.withLock { current -> Bool in
            guard current == nil, !stopped.isRaised else { return false }
            current = jar.addObserver { change in continuation.yield(.jar(change)) }
            return true
        }
        guard isFirstStart else { return await settle() }
        // The store keeps its observers for its own lifetime: the closure holds only the stream, which yields
        // nothing once this sync is stopped or gone.
        store.observeChanges {
            // Changes come in bursts (one per cookie of a response): one read of the store answers them all.
            if pullQueued.raise() { continuation.yield(.engine) }
        }
        await withCheckedContinuation { work.yield(.start($0)) }
    }

    /// Waits until everything that reached the sync so far has been applied (for tests and for hosts that want to
    /// load a page right after changing the jar).
    public func settle() async {
        await withCheckedContinuation { continuation in
            if case .terminated = work.yield(.barrier(continuation)) { continuation.resume() }
        }
    }

    /// Stops following both sides; cookies already copied stay where they are, changes not yet applied are dropped.
    public func stop() {
        guard stopped.raise() else { return }
        observation.withLock { $0 = nil }
        work.finish()
    }
}

/// The state behind ``EngineCookieSync``: touched by its worker only, one item at a time.
private actor Worker {
    let jar: CookieJar
    let store: any EngineCookieStore
    let pullQueued: SyncFlag
    /// What the engine holds, as far as this sync knows.
    var mirror: [EngineCookieKey: EngineCookie] = [:]
    var started = false
    let logger = Logger(label: "hybrid.cookies.engine-sync")

    init(jar: CookieJar, store: any EngineCookieStore, pullQueued: SyncFlag) {
        self.jar = jar
        self.store = store
        self.pullQueued = pullQueued
    }

    func handle(_ item: EngineCookieSync.Work) async {
        switch item {
        case .start(let done):
            await begin()
            done.resume()
        case .jar(let change):
            guard started else { return }
            await push(change)
        case .engine:
            pullQueued.lower()
            guard started else { return }
            await pull()
        case .barrier(let done):
            done.resume()
        }
    }

    private func begin() async {
        guard !started else { return }
        started = true
        do {
            for cookie in try await store.cookies(for: nil) { mirror[cookie.key] = cookie }
        } catch {
            logger.warning("cannot read the engine's cookies: \(error)")
        }
        let now = Date()
        for cookie in jar.allCookies() where !cookie.isExpired(at: now) {
            await write(EngineCookie(cookie))
        }
    }

    /// A jar change, to the engine.
    private func push(_ change: CookieChange) async {
        let cookie = EngineCookie(change.cookie)
        switch change.kind {
        case .removed:
            guard mirror.removeValue(forKey: cookie.key) != nil else { return }
            await delete(cookie.key)
        case .added, .updated:
            await write(cookie)
        }
    }

    private func write(_ cookie: EngineCookie) async {
        if let known = mirror[cookie.key], known.isEquivalent(to: cookie) { return }
        mirror[cookie.key] = cookie
        do {
            try await store.setCookie(cookie)
            Counter(label: HybridMetrics.cookieSync, dimensions: [("direction", "to_engine")]).increment()
        } catch {
            mirror[cookie.key] = nil
            logger.warning("cannot write cookie \(cookie.name) for \(cookie.domain) to the engine: \(error)")
        }
    }

    /// Deletes every engine cookie with `key`, whatever its value (the engine matches deletions by value too).
    private func delete(_ key: EngineCookieKey) async {
        do {
            for cookie in try await store.cookies(for: nil) where cookie.key == key {
                try await store.deleteCookie(cookie)
                Counter(label: HybridMetrics.cookieSync, dimensions: [("direction", "deleted_from_engine")]).increment()
            }
        } catch {
            logger.warning("cannot delete cookie \(key.name) for \(key.domain) from the engine: \(error)")
        }
    }

    /// The engine's store changed: copy what differs from the mirror into the jar.
    private func pull() async {
        let current: [EngineCookie]
        do {
            current = try await store.cookies(for: nil)
        } catch {
            logger.warning("cannot read the engine's cookies: \(error)")
            return
        }
        let now = Date()
        var seen: Set<EngineCookieKey> = []
        for cookie in current {
            seen.insert(cookie.key)
            if let known = mirror[cookie.key], known.isEquivalent(to: cookie) { continue }
            let jarCookie = cookie.jarCookie(now: now)
            // Remembered as the jar will hold it, so the jar's resulting change compares equal and is not written
            // back, even for an attribute the engine spells differently (the loop stops here, whatever the engine).
            mirror[cookie.key] = EngineCookie(jarCookie)
            Counter(label: HybridMetrics.cookieSync, dimensions: [("direction", "from_engine")]).increment()
            if jarCookie.isExpired(at: now) {
                jar.deleteCookie(
                    name: jarCookie.name, domain: jarCookie.domain, path: jarCookie.path, hostOnly: jarCookie.hostOnly)
            } else {
                jar.upsert(jarCookie)
            }
        }
        for (key, gone) in mirror where !seen.contains(key) {
            mirror[key] = nil
            let jarCookie = gone.jarCookie(now: now)
            jar.deleteCookie(
                name: jarCookie.name, domain: jarCookie.domain, path: jarCookie.path, hostOnly: jarCookie.hostOnly)
        }
    }
}

/// A flag shared between the sync and its worker (whether a read of the engine's store is queued; whether the
/// sync was stopped).
final class SyncFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// Raises the flag; true when it was down (so the caller acts once).
    func raise() -> Bool { !value.exchange(true, ordering: .acquiringAndReleasing) }

    func lower() { value.store(false, ordering: .releasing) }

    var isRaised: Bool { value.load(ordering: .acquiring) }
}
