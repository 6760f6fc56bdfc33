import Foundation

extension CookieJar {
    /// What `open` does when the store holds data it cannot read.
    public enum CorruptDataPolicy: Sendable {
        /// Throw the `CookieJarStoreError`; the caller decides.
        case fail
        /// Move the unreadable data aside (kept for inspection) and start with an empty jar.
        case quarantineAndStartEmpty
    }

    /// Creates a jar and fills it from `store`.
    public static func open(
        store: any CookieJarStore,
        configuration: CookieJarConfiguration = CookieJarConfiguration(),
        clock: @escaping CookieClock = systemCookieClock,
        corruptDataPolicy: CorruptDataPolicy = .quarantineAndStartEmpty
    ) throws(CookieJarStoreError) -> CookieJar {
        let jar = CookieJar(configuration: configuration, store: store, clock: clock)
        do {
            try jar.reload()
        } catch {
            switch (error, corruptDataPolicy) {
            case (.corrupt, .quarantineAndStartEmpty), (.unsupportedVersion, .quarantineAndStartEmpty):
                _ = try store.quarantineCorruptData()
            default:
                throw error
            }
        }
        return jar
    }

    /// Replaces the jar's content with what the store holds (expired cookies dropped).
    /// Emits no change events: it is a fresh start, not a change.
    public func reload() throws(CookieJarStoreError) {
        guard let store else { return }
        let loaded = try store.load()
        let now = clock()
        state.withLock { state in
            state.removeAll()
            for cookie in loaded where !cookie.isExpired(at: now) && cookie.isPersistent {
                state.insert(cookie)
            }
        }
        flushedGeneration.withLock { generation in generation = state.withLock { $0.generation } }
    }

    /// Whether changes were made since the last `flush()` (or load).
    public var hasUnsavedChanges: Bool {
        let current = state.withLock { $0.generation }
        return flushedGeneration.withLock { $0 } != current
    }

    /// Writes the persistent, unexpired cookies to the store if anything changed since the last flush.
    /// Session cookies are never written. Concurrent flushes are serialised; a flush that finds a newer
    /// snapshot already written does nothing.
    public func flush() throws(CookieJarStoreError) {
        guard let store else { return }
        let now = clock()
        try flushedGeneration.withLock { (flushed: inout UInt64) throws(CookieJarStoreError) in
            let (generation, cookies) = state.withLock { state in
                (state.generation, state.allCookies.filter { $0.isPersistent && !$0.isExpired(at: now) })
            }
            guard generation != flushed else { return }
            try store.save(cookies.sorted { $0.creationDate < $1.creationDate })
            flushed = generation
        }
    }
}
