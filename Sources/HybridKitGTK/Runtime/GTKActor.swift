#if canImport(CWebKitGTK)  // WebKitGTK: Linux only (see Package.swift)
/// The actor for everything that touches WebKitGTK: its executor is GTK's own thread.
@globalActor
public actor GTKActor {
    public static let shared = GTKActor()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        GTKRuntime.shared.executor.asUnownedSerialExecutor()
    }
}
#endif
