#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
extension GTKActor {
    /// Runs `body` as GTK-isolated code from a synchronous, nonisolated context that is known to be on the
    /// GTK thread: a GLib signal callback, the C boundary, where a plain C function pointer cannot carry an
    /// isolation. Traps when called elsewhere, which turns a threading bug into an immediate, legible failure
    /// rather than a WebKit crash later.
    ///
    /// The compiler does the entering: `GTKEntry`'s conformance is `@preconcurrency`, so its witness thunk checks
    /// GTK's executor (``GLibMainContextExecutor/checkIsolated()``) before running the GTK-isolated witness
    /// (SE-0423). No isolation is cast away by hand. (`Actor.assumeIsolated` on `GTKActor.shared` would also
    /// check, but the compiler does not treat its `isolated GTKActor` parameter as `@GTKActor`, so `body` could
    /// not be called from it.)
    static func run<T>(_ body: @GTKActor () throws -> T) rethrows -> T {
        let entry: any GTKEntering = GTKEntry()
        return try entry.enter(body)
    }
}

/// A nonisolated requirement that `GTKEntry` meets on GTK's actor, so that calls through it are checked.
private protocol GTKEntering {
    func enter<T>(_ body: @GTKActor () throws -> T) rethrows -> T
}

@GTKActor
private struct GTKEntry: @preconcurrency GTKEntering {
    nonisolated init() {}
    func enter<T>(_ body: @GTKActor () throws -> T) rethrows -> T { try body() }
}
#endif
