#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
extension GTKActor {
    /// Runs `body` as GTK-isolated code from a synchronous, nonisolated context that is known to be on the
    /// GTK thread (a GLib callback, or a port method whose contract says so). Traps when called elsewhere,
    /// which turns a threading bug into an immediate, legible failure rather than a WebKit crash later.
    ///
    /// The same technique as `MainActor.assumeIsolated`: check the executor, then call the closure without
    /// its isolation annotation, which is sound because we are on that executor.
    static func run<T: Sendable>(_ body: @GTKActor () -> T) -> T {
        typealias Isolated = @GTKActor () -> T
        typealias Plain = () -> T
        GTKRuntime.shared.executor.checkIsolated()
        return withoutActuallyEscaping(body) { (body: @escaping Isolated) -> T in
            unsafeBitCast(body, to: Plain.self)()
        }
    }
}
#endif
